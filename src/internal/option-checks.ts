import { configError } from '../base/errors';

/** A positive number of milliseconds, or `fallback` when absent; a start-up error naming the option otherwise. */
export function positiveMs(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw configError(`options.${name} must be a positive number of milliseconds`);
  return value;
}

/** A whole number >= 0, or `fallback` when absent. */
export function wholeNumber(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw configError(`options.${name} must be a whole number >= 0`);
  return value;
}

/** A valid HTTP header or cookie name, or `fallback` when absent. */
export function headerName(name: string, value: string | undefined, fallback: string): string {
  const v = value ?? fallback;
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(v)) throw configError(`options.${name} ${JSON.stringify(v)} is not a valid name`);
  return v;
}
