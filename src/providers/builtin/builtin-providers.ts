import { battlenet } from './battlenet';
import { discord } from './discord';
import { facebook } from './facebook';
import { github } from './github';
import { google } from './google';
import { microsoft } from './microsoft';
import { patreon } from './patreon';
import type { BuiltinSpec } from './spec';
import { twitter } from './twitter';
import { yandex } from './yandex';

/** The built-in OAuth2 providers by name (`dev` is added by `addDevProvider`). */
export const BUILTIN_PROVIDERS: ReadonlyMap<string, BuiltinSpec> = new Map([github, google, facebook, microsoft, yandex, battlenet, patreon, discord, twitter].map((spec) => [spec.name, spec]));
