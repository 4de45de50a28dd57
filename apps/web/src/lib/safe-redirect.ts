// A base that no real request has: a target that still resolves to it stayed on this site.
const PROBE_ORIGIN = "http://evotrainer.invalid";

/** Every form the value takes as it is decoded again and again (double encoding hides one layer per pass). */
function decodedForms(value: string): string[] | null {
  const forms = [value];
  for (let i = 0; i < 4; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(forms.at(-1)!);
    } catch {
      return null;
    }
    if (decoded === forms.at(-1)) return forms;
    forms.push(decoded);
  }
  return null;
}

/**
 * Where to send the browser after sign-in: a path on this site, or "/". Browsers read `\` as `/`,
 * drop tabs and newlines inside URLs and resolve dot segments, so `/\evil`, `/%5Cevil`,
 * `/\t/evil` and `/.//evil` all reach another origin as `//evil`; any such form is refused, in
 * whatever layer of percent-encoding it hides.
 */
export function safeRedirectPath(next: string | null | undefined): string {
  if (!next) return "/";
  const forms = decodedForms(next);
  if (!forms) return "/";
  for (const form of forms) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f\\]/.test(form) || !form.startsWith("/") || form.startsWith("//")) return "/";
  }
  const url = new URL(next, PROBE_ORIGIN);
  if (url.origin !== PROBE_ORIGIN || url.pathname.startsWith("//")) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}
