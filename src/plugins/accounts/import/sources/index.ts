import { AUTH0 } from './auth0';
import { BETTER_AUTH } from './better-auth';
import { CLERK } from './clerk';
import { FIREBASE } from './firebase';
import { KEYCLOAK } from './keycloak';
import { OWN_CSV, OWN_JSON } from './own-file';
import type { ImportSource } from './source';
import { SUPABASE } from './supabase';

export type { ImportSource } from './source';

/** The sources `npx authgate import --from` reads, by name. */
export const IMPORT_SOURCES: ReadonlyMap<string, ImportSource> = new Map([OWN_JSON, OWN_CSV, AUTH0, CLERK, FIREBASE, KEYCLOAK, SUPABASE, BETTER_AUTH].map((s) => [s.name, s]));
