// The pause of a worker loop between passes: sleep(ms) resolves after ms, or at once when wake()
// is called (a commit, a signal to stop), so a loop both polls and reacts without busy-waiting.
export interface InterruptibleSleep {
  sleep(ms: number): Promise<void>;
  wake(): void;
}

export function interruptibleSleep(): InterruptibleSleep {
  let timer: NodeJS.Timeout | null = null;
  let resolveSleep: (() => void) | null = null;
  return {
    sleep: (ms) => new Promise<void>((resolve) => {
      resolveSleep = resolve;
      timer = setTimeout(resolve, ms);
    }),
    wake() {
      if (timer) clearTimeout(timer);
      timer = null;
      resolveSleep?.();
    },
  };
}
