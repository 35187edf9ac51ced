/**
 * Where authgate answers otherwise than go-pkgz/auth v2.2.0 did, on purpose. Each entry is one row
 * of the compatibility table (docs/compatibility.md) (its first cell, `readme`) and the recorded cases it explains;
 * the suites assert that the cases differ exactly there, and that the table has exactly these rows.
 */
export interface Difference {
  /** The first cell of the row in compatibility table of docs/compatibility.md. */
  readme: string;
  /** Token variants (`verdicts[].variant`) whose verdict differs, by probe. */
  variants?: Record<string, Probe[]>;
  /** HTTP transcripts (`http[].case`) whose answer differs. */
  transcripts?: string[];
  /** Minted tokens (`minted[].case`) read otherwise. */
  minted?: string[];
}

/** The questions put to both sides about one token. */
export type Probe = 'in_process_x_jwt' | 'private_cookie' | 'private_x_jwt' | 'admin_cookie';

const everywhere: Probe[] = ['in_process_x_jwt', 'private_cookie', 'private_x_jwt', 'admin_cookie'];
const overHttp: Probe[] = ['private_cookie', 'private_x_jwt', 'admin_cookie'];

/** Every intentional difference, in the table's order. */
export const DIFFERENCES: Difference[] = [
  { readme: 'signing algorithm', variants: { alg_HS384: everywhere, alg_HS512: everywhere } },
  { readme: '`exp` missing', variants: { exp_missing: everywhere } },
  { readme: '`exp` as a numeric string', variants: { exp_string: everywhere } },
  {
    readme: 'expired cookie older than `cookieDuration` past its expiry',
    variants: { expired_40days: ['private_cookie', 'admin_cookie'] },
    transcripts: ['refresh_crafted_expired_40days_private'],
  },
  { readme: 'token over 8 KiB', variants: { large_over_8KiB: everywhere, large_over_16KiB: everywhere } },
  { readme: 'a line break inside a segment', variants: { newline_inside_payload: ['in_process_x_jwt'] } },
  { readme: 'user without `id` or `name`', variants: { user_empty_object: everywhere, user_id_missing: everywhere, user_name_missing: everywhere } },
  { readme: '`user` null', variants: { user_null: ['in_process_x_jwt'] } },
  {
    readme: "`auth_provider` names a provider that is gone, while the id's prefix names a registered one",
    variants: { auth_provider_unregistered: overHttp },
    minted: ['provider_github'],
  },
  { readme: 'cookie token without `jti`, with an empty XSRF header', variants: { jti_missing: ['private_cookie', 'admin_cookie'], jti_empty_string: ['private_cookie', 'admin_cookie'] } },
  { readme: 'GET direct login, Telegram check or logout from another site' },
  { readme: 'login for an `aud` outside `audiences`', transcripts: ['aud_server_login_aud_c_refused'] },
  { readme: 'login without `aud`', transcripts: ['aud_server_login_no_aud'] },
  { readme: '`site=` on a login', transcripts: ['login_get_demo_site'] },
  { readme: 'login of an unknown provider', transcripts: ['auth_unknown_provider_login'] },
  { readme: '`from` on a direct login', transcripts: ['login_get_demo_from'] },
  { readme: '`session=1` in a POST form body', transcripts: ['login_post_form_demo_session_1_in_body'] },
  { readme: '`/auth/user` with an expired cookie', transcripts: ['refresh_expired_cookie_auth_user'] },
  { readme: 'bodies of middleware refusals and of logout' },
];

/** The probes of `variant` where authgate differs on purpose. */
export function intendedProbes(variant: string): Probe[] {
  return DIFFERENCES.flatMap((d) => d.variants?.[variant] ?? []);
}

/** The README row that explains a transcript or minted case, if any. */
export function intendedFor(kind: 'transcripts' | 'minted', name: string): string | undefined {
  return DIFFERENCES.find((d) => d[kind]?.includes(name))?.readme;
}
