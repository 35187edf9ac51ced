import { hasUnusableChars } from '../../internal/text';

const BROWSERS: ReadonlyArray<[RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/Chrom(?:e|ium)\/|\bCriOS\//, 'Chrome'],
  [/\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
];

const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone|\biPad|\biPod/, 'iOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bLinux\b/, 'Linux'],
];

/**
 * A short, recognisable summary of a `User-Agent` header for the session list ("Firefox on
 * Linux"); the start of the header (60 characters) when no known browser is named, "unknown"
 * without one. Never the whole header: it is shown back to the user and stored for each session.
 */
export function summarizeUserAgent(header: string | undefined): string {
  if (typeof header !== 'string' || header === '' || hasUnusableChars(header)) return 'unknown';
  const browser = BROWSERS.find(([pattern]) => pattern.test(header))?.[1];
  const system = SYSTEMS.find(([pattern]) => pattern.test(header))?.[1];
  if (browser === undefined) return header.slice(0, 60);
  return system === undefined ? browser : `${browser} on ${system}`;
}
