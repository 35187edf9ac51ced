import { createStateStore } from '../../src';
import { parseRedisUri } from '../../src/internal/redis';

describe('Redis store URIs: one server, Sentinel, Cluster', () => {
  it('reads the sentinels, the master name, the database and the sentinels’ own password', () => {
    const target = parseRedisUri('redis+sentinel://app:secret@10.0.0.1:26379,10.0.0.2,[::1]:26380/mymaster/2?prefix=a:&sentinel_password=s&command_timeout=500');
    expect(target).toMatchObject({
      layout: 'sentinel',
      nodes: [
        { host: '10.0.0.1', port: 26379 },
        { host: '10.0.0.2', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      masterName: 'mymaster',
      prefix: 'a:',
      commandTimeout: 500,
      waitReplicas: 1,
      node: { username: 'app', password: 'secret', database: 2, tls: false },
      sentinel: { password: 's' },
    });
    expect(target.clientUri).not.toContain('sentinel_password');
  });

  it('reads the seed nodes of a Cluster (TLS with rediss+cluster) and waits for no replica on one server unless asked', () => {
    expect(parseRedisUri('rediss+cluster://n1:7000,n2:7001?wait_replicas=2&wait_timeout=50')).toMatchObject({
      layout: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
      waitReplicas: 2,
      waitTimeout: 50,
      node: { tls: true },
    });
    expect(parseRedisUri('redis://127.0.0.1:6379/0')).toMatchObject({ layout: 'server', waitReplicas: 0, node: { database: 0 } });
  });

  it.each([
    ['redis://h1:6379,h2:6379', /names one server/],
    ['redis+sentinel://s1:26379', /names the master/],
    ['redis+sentinel://s1:26379/bad name!', /names the master/],
    ['redis+cluster://n1:7000?command_timeout=0', /command_timeout/],
    ['redis+cluster://n1:99999', /not a host/],
    ['redis://h/abc', /database is a number/],
    ['redis+cluster://n1:7000?wait_replicas=-1', /wait_replicas/],
  ])('refuses %s at start-up with a config error', (uri, message) => {
    expect(() => createStateStore(uri)).toThrow(message);
  });
});
