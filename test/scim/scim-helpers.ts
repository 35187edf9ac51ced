import type { Express } from 'express';
import request from 'supertest';
import type { Response } from 'supertest';
import type { Browser } from '../organizations/org-helpers';

/** The core user schema's URN. */
export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
/** The enterprise extension's URN. */
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/** The PATCH message's URN. */
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
/** The error message's URN. */
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A directory calling the SCIM service with one organization's token. */
export class Directory {
  constructor(
    private readonly app: Express,
    readonly token: string,
  ) {}

  /** Makes a token of organization `org` as its admin `owner` and returns the directory holding it. */
  static async of(app: Express, owner: Browser, org: string, name = 'Directory'): Promise<Directory> {
    const made = await owner.post(`/auth/orgs/${org}/scim/tokens`, { name });
    if (made.status !== 201) throw new Error(`token: ${made.status} ${JSON.stringify(made.body)}`);
    return new Directory(app, made.body.token as string);
  }

  /** A request to `/auth/scim/v2<path>` with the token and (when given) a SCIM JSON body. */
  send(method: 'get' | 'post' | 'put' | 'patch' | 'delete', path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    let req = request(this.app)[method](`/auth/scim/v2${path}`).set('Authorization', `Bearer ${this.token}`);
    for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
    if (body === undefined) return req;
    return req.set('Content-Type', 'application/scim+json').send(typeof body === 'string' ? body : JSON.stringify(body));
  }

  /** `POST /Users` of a plain user; its answer. */
  createUser(userName: string, more: Record<string, unknown> = {}): Promise<Response> {
    return this.send('post', '/Users', {
      schemas: [USER],
      userName,
      name: { givenName: userName.split('@')[0], familyName: 'Doe' },
      emails: [{ value: userName, type: 'work', primary: true }],
      active: true,
      ...more,
    });
  }

  /** `PATCH /Users/:id` with operations. */
  patchUser(id: string, ...operations: unknown[]): Promise<Response> {
    return this.send('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: operations });
  }

  /** `GET /Users?filter=...` (URL-encoded); its answer. */
  filterUsers(filter: string, more = ''): Promise<Response> {
    return this.send('get', `/Users?filter=${encodeURIComponent(filter)}${more}`);
  }
}
