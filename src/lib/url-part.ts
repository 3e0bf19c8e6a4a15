// A URL's user name or password as typed. The URL parser accepts a malformed escape there
// ("%E0%A4%A"), on which decodeURIComponent throws: such a part is taken as written.

/** The part with its %XX escapes decoded, or as it stands when they do not decode. */
export function decodedUrlPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
