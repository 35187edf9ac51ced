// The MongoDB peer of the test suites where no MongoDB server can be installed: CongoDB's wire
// protocol and command handlers (from the npm package @push.rocks/smartmongo 2.2.0, its unused
// dependencies overridden in package.json), on a storage of our own that makes up for what CongoDB
// lacks: any _id type (CongoDB turns every _id into an ObjectId), unique indexes enforced with
// code 11000, strings sorted by their bytes, one command at a time (a command is atomic, as a single-document write is on
// MongoDB), and TTL indexes applied. Started by test/support/mongo.ts: `node server.mjs <port>`.
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const congo = join(dirname(require.resolve('@push.rocks/smartmongo/package.json')), 'dist_ts/congodb');
const { WireProtocol, OP_QUERY } = await import(pathToFileURL(join(congo, 'server/WireProtocol.js')).href);
const { CommandRouter } = await import(pathToFileURL(join(congo, 'server/CommandRouter.js')).href);
const { QueryEngine } = await import(pathToFileURL(join(congo, 'engine/QueryEngine.js')).href);
const { Timestamp } = await import(pathToFileURL(require.resolve('bson', { paths: [congo] })).href);

/** A map key for any _id: ObjectIds by their hex, other values by type and value. */
function keyOf(id) {
  if (id !== null && typeof id === 'object' && typeof id.toHexString === 'function') return `o${id.toHexString()}`;
  return `${typeof id}:${typeof id === 'string' ? id : JSON.stringify(id)}`;
}

/** The value at a dotted path of a document. */
function at(doc, path) {
  return path.split('.').reduce((v, part) => (v === null || v === undefined ? undefined : v[part]), doc);
}

function duplicate(ns, index, value) {
  return Object.assign(new Error(`E11000 duplicate key error collection: ${ns} index: ${index} dup key: ${JSON.stringify(value)} (Duplicate key)`), { code: 11000 });
}

const ID_INDEX = { name: '_id_', key: { _id: 1 }, unique: true };

class StandinStorage {
  dbs = new Map(); // db -> coll -> { docs: Map<key, doc>, indexes: [] }
  opLog = [];
  counter = 0;

  async initialize() {}
  async close() {}
  async listDatabases() {
    return [...this.dbs.keys()];
  }
  async createDatabase(db) {
    if (!this.dbs.has(db)) this.dbs.set(db, new Map());
  }
  async dropDatabase(db) {
    return this.dbs.delete(db);
  }
  async databaseExists(db) {
    return this.dbs.has(db);
  }
  async listCollections(db) {
    return [...(this.dbs.get(db)?.keys() ?? [])];
  }
  coll(db, name) {
    if (!this.dbs.has(db)) this.dbs.set(db, new Map());
    const colls = this.dbs.get(db);
    if (!colls.has(name)) colls.set(name, { docs: new Map(), indexes: [ID_INDEX] });
    return colls.get(name);
  }
  async createCollection(db, name) {
    this.coll(db, name);
  }
  async dropCollection(db, name) {
    return this.dbs.get(db)?.delete(name) ?? false;
  }
  async collectionExists(db, name) {
    return this.dbs.get(db)?.has(name) ?? false;
  }
  async renameCollection(db, from, to) {
    const colls = this.dbs.get(db);
    if (!colls?.has(from)) throw new Error(`Collection ${from} not found`);
    colls.set(to, colls.get(from));
    colls.delete(from);
  }
  getCollection(db, name) {
    return this.coll(db, name).docs;
  }
  ensureCollection(db, name) {
    return this.coll(db, name).docs;
  }
  /** Refuses `doc` when a unique index of the collection has its value in another document. */
  checkUnique(db, name, doc) {
    const c = this.coll(db, name);
    for (const index of c.indexes) {
      if (!index.unique || index.name === '_id_') continue;
      const fields = Object.keys(index.key);
      const value = JSON.stringify(fields.map((f) => at(doc, f) ?? null));
      if (index.sparse && fields.every((f) => at(doc, f) === undefined)) continue;
      for (const other of c.docs.values()) {
        if (keyOf(other._id) !== keyOf(doc._id) && JSON.stringify(fields.map((f) => at(other, f) ?? null)) === value) throw duplicate(`${db}.${name}`, index.name, value);
      }
    }
  }
  async insertOne(db, name, doc) {
    const c = this.coll(db, name);
    const key = keyOf(doc._id);
    if (c.docs.has(key)) throw duplicate(`${db}.${name}`, '_id_', doc._id);
    this.checkUnique(db, name, doc);
    c.docs.set(key, doc);
    return doc;
  }
  async insertMany(db, name, docs) {
    const out = [];
    for (const doc of docs) out.push(await this.insertOne(db, name, doc));
    return out;
  }
  async findAll(db, name) {
    this.expire(db, name);
    return [...this.coll(db, name).docs.values()];
  }
  async findById(db, name, id) {
    return this.coll(db, name).docs.get(keyOf(id)) ?? null;
  }
  async updateById(db, name, id, doc) {
    const c = this.coll(db, name);
    const key = keyOf(id);
    if (!c.docs.has(key)) return false;
    this.checkUnique(db, name, doc);
    c.docs.set(key, doc);
    return true;
  }
  async deleteById(db, name, id) {
    return this.coll(db, name).docs.delete(keyOf(id));
  }
  async deleteByIds(db, name, ids) {
    let n = 0;
    for (const id of ids) if (await this.deleteById(db, name, id)) n++;
    return n;
  }
  async count(db, name) {
    this.expire(db, name);
    return this.coll(db, name).docs.size;
  }
  /** Applies the collection's TTL indexes (MongoDB does it in the background, within a minute). */
  expire(db, name) {
    const c = this.coll(db, name);
    const now = Date.now();
    for (const index of c.indexes) {
      if (typeof index.expireAfterSeconds !== 'number') continue;
      const field = Object.keys(index.key)[0];
      for (const [key, doc] of c.docs) {
        const when = at(doc, field);
        if (when instanceof Date && when.getTime() + index.expireAfterSeconds * 1000 <= now) c.docs.delete(key);
      }
    }
  }
  async saveIndex(db, name, indexName, spec) {
    const c = this.coll(db, name);
    const index = { name: indexName, ...spec };
    const existing = c.indexes.findIndex((i) => i.name === indexName);
    if (existing >= 0) c.indexes[existing] = index;
    else c.indexes.push(index);
  }
  async getIndexes(db, name) {
    return this.coll(db, name).indexes;
  }
  async dropIndex(db, name, indexName) {
    if (indexName === '_id_') throw new Error('Cannot drop _id index');
    const c = this.coll(db, name);
    const before = c.indexes.length;
    c.indexes = c.indexes.filter((i) => i.name !== indexName);
    return c.indexes.length < before;
  }
  async appendOpLog(entry) {
    this.opLog.push(entry);
    if (this.opLog.length > 1000) this.opLog.shift();
  }
  async getOpLogAfter(ts, limit = 1000) {
    return this.opLog.filter((e) => e.ts.greaterThan(ts)).slice(0, limit);
  }
  async getLatestOpLogTimestamp() {
    return this.opLog.at(-1)?.ts ?? null;
  }
  generateTimestamp() {
    return new Timestamp({ t: Math.floor(Date.now() / 1000), i: ++this.counter });
  }
  async createSnapshot(db, name) {
    return structuredClone(await this.findAll(db, name));
  }
  async hasConflicts() {
    return false;
  }
}

// MongoDB sorts strings by their bytes (binary collation); CongoDB sorts by the locale's order.
const compareValues = QueryEngine.compareValues.bind(QueryEngine);
QueryEngine.compareValues = (a, b) => (typeof a === 'string' && typeof b === 'string' ? Buffer.compare(Buffer.from(a), Buffer.from(b)) : compareValues(a, b));

const storage = new StandinStorage();
const connections = new Set();
const server = { getConnectionCount: () => connections.size, getUptime: () => Math.floor(process.uptime()), port: 0, host: '127.0.0.1' };
const router = new CommandRouter(storage, server);

/** createIndexes on the storage above (CongoDB's own index engine needs ObjectId _ids); the rest as CongoDB answers. */
async function route(command) {
  const { command: body, database } = command;
  if (body?.createIndexes === undefined) return router.route(command);
  const name = body.createIndexes;
  const before = (await storage.getIndexes(database, name)).length;
  for (const { name: indexName, key, ...options } of body.indexes ?? []) {
    const existing = (await storage.getIndexes(database, name)).find((i) => i.name === indexName);
    if (existing) continue;
    if (options.unique) {
      // Refused, as MongoDB refuses it, when the documents already break it.
      const docs = await storage.findAll(database, name);
      const seen = new Set();
      for (const doc of docs) {
        const value = JSON.stringify(Object.keys(key).map((f) => at(doc, f) ?? null));
        if (seen.has(value)) return { ok: 0, code: 11000, codeName: 'DuplicateKey', errmsg: duplicate(`${database}.${name}`, indexName, value).message };
        seen.add(value);
      }
    }
    await storage.saveIndex(database, name, indexName, { key, ...options });
  }
  return { ok: 1, numIndexesBefore: before, numIndexesAfter: (await storage.getIndexes(database, name)).length, createdCollectionAutomatically: before === 1 };
}

// One command at a time, across connections: each runs to the end before the next starts.
let queue = Promise.resolve();
function serially(work) {
  const run = queue.then(work);
  queue = run.catch(() => undefined);
  return run;
}

const tcp = createServer((socket) => {
  connections.add(socket);
  let buffer = Buffer.alloc(0);
  let reading = Promise.resolve();
  socket.on('close', () => connections.delete(socket));
  socket.on('error', () => connections.delete(socket));
  socket.on('data', (data) => {
    buffer = Buffer.concat([buffer, data]);
    reading = reading.then(async () => {
      for (;;) {
        let parsed;
        try {
          parsed = WireProtocol.parseMessage(buffer);
        } catch (err) {
          buffer = Buffer.alloc(0);
          if (!socket.destroyed) socket.write(WireProtocol.encodeErrorResponse(0, 1, err.message ?? 'bad message'));
          return;
        }
        if (!parsed) return;
        buffer = buffer.subarray(parsed.bytesConsumed);
        const { command } = parsed;
        const response = await serially(() => route(command)).catch((err) => ({ ok: 0, errmsg: err.message ?? 'internal error', code: 1 }));
        const reply = command.opCode === OP_QUERY ? WireProtocol.encodeOpReplyResponse(command.requestID, [response]) : WireProtocol.encodeOpMsgResponse(command.requestID, response);
        if (!socket.destroyed) socket.write(reply);
      }
    });
  });
});

const port = Number(process.argv[2] ?? 0);
tcp.listen(port, '127.0.0.1', () => {
  server.port = tcp.address().port;
  process.stdout.write(`listening on ${server.port}\n`);
});
