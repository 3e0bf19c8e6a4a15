// The part of madge's API the architecture test uses (the package ships no types).
declare module 'madge' {
  interface MadgeResult {
    /** file → the files it imports, paths relative to the base directory */
    obj(): Record<string, string[]>;
    circular(): string[][];
  }
  interface MadgeConfig {
    fileExtensions?: string[];
    baseDir?: string;
    detectiveOptions?: Record<string, unknown>;
  }
  export default function madge(path: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
