import { ssoLogin } from './sso-login';
import { importBench } from './import';
import { telemetryBench } from './telemetry';
import { readFileSync, writeFileSync } from 'node:fs';
import { readArgs } from './lib/args';
import { machineLine } from './lib/table';
import { performancePage, PERFORMANCE_FILES } from './docs-page';
import { avatarRoute } from './avatar-route';
import { eventLoop } from './event-loop';
import { login } from './login';
import { accountLogin } from './account-login';
import { userDirectory } from './user-directory';
import { memory } from './memory';
import { accountScale } from './account-scale';
import { packageCost } from './package-cost';
import { sharedStores } from './shared-stores';
import { protectedRoute } from './protected-route';
import { sessionsBench } from './sessions';
import { idpBench } from './idp';
import { storeTrips } from './store-trips';
import { scimBench } from './scim';
import { orgScale } from './org-scale';
import { resourceServerBench } from './resource-server';

const BENCHES: Record<string, (args: ReturnType<typeof readArgs>) => Promise<string>> = {
  protected: protectedRoute,
  avatar: avatarRoute,
  login,
  'account-login': accountLogin,
  users: userDirectory,
  hashing: eventLoop,
  memory,
  accounts: accountScale,
  package: packageCost,
  shared: sharedStores,
  sessions: sessionsBench,
  idp: idpBench,
  trips: storeTrips,
  scim: scimBench,
  orgs: orgScale,
  resource: resourceServerBench,
  sso: ssoLogin,
  import: importBench,
  telemetry: telemetryBench,
};

async function main(): Promise<void> {
  const args = readArgs();
  const started = Date.now();
  const machine = machineLine();
  console.log(`${machine}${args.quick ? ' (quick run: short runs show that every bench works; judge the targets on a full run)' : ''}\n`);
  const tables: string[] = [];
  for (const [name, bench] of Object.entries(BENCHES)) {
    if (args.only && !args.only.includes(name)) continue;
    const t = Date.now();
    tables.push(await bench(args));
    console.log(`(${name}: ${((Date.now() - t) / 1000).toFixed(1)} s)\n`);
  }
  console.log(`done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  if (!args.quick && !args.only) {
    const results = `# Benchmark results\n\n${machine}\n\n${tables.join('\n')}\n`;
    writeFileSync(PERFORMANCE_FILES.results, results);
    writeFileSync(PERFORMANCE_FILES.page, performancePage(readFileSync(PERFORMANCE_FILES.page, 'utf8'), results));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
