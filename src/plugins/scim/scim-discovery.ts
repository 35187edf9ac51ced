/** What a SCIM client reads first (RFC 7643 §5 to §7): what this service supports, its resource types and their schemas. */

const CORE = 'urn:ietf:params:scim:schemas:core:2.0';
/** The schema of the user resource. */
export const USER_SCHEMA = `${CORE}:User`;
/** The schema of the group resource. */
export const GROUP_SCHEMA = `${CORE}:Group`;
/** The enterprise user extension (RFC 7643 §4.3). */
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
/** The schema of a list answer. */
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** The most resources one list answer holds. */
export const MAX_RESULTS = 100;

type Attribute = Record<string, unknown>;

const text = (name: string, more: Attribute = {}): Attribute => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...more,
});
const multi = (name: string, subs: Attribute[]): Attribute => ({ name, type: 'complex', multiValued: true, required: false, mutability: 'readWrite', returned: 'default', subAttributes: subs });

const SCHEMAS = [
  {
    id: USER_SCHEMA,
    name: 'User',
    description: 'A person of the organization',
    attributes: [
      text('userName', { required: true, uniqueness: 'server' }),
      text('externalId', { caseExact: true }),
      { name: 'name', type: 'complex', multiValued: false, required: false, mutability: 'readWrite', returned: 'default', subAttributes: [text('formatted'), text('givenName'), text('familyName')] },
      text('displayName'),
      { name: 'active', type: 'boolean', multiValued: false, required: false, mutability: 'readWrite', returned: 'default' },
      multi('emails', [text('value'), text('type'), { name: 'primary', type: 'boolean', multiValued: false, required: false, mutability: 'readWrite', returned: 'default' }]),
      multi('groups', [text('value', { mutability: 'readOnly' }), text('display', { mutability: 'readOnly' })]),
    ],
  },
  {
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'A team of the organization (and, as the organization maps it, a role)',
    attributes: [
      text('displayName', { required: true }),
      text('externalId', { caseExact: true }),
      multi('members', [text('value', { mutability: 'immutable' }), text('display', { mutability: 'readOnly' })]),
    ],
  },
  {
    id: ENTERPRISE_USER_SCHEMA,
    name: 'EnterpriseUser',
    description: 'Enterprise user',
    attributes: [
      text('employeeNumber'),
      text('costCenter'),
      text('organization'),
      text('division'),
      text('department'),
      {
        name: 'manager',
        type: 'complex',
        multiValued: false,
        required: false,
        mutability: 'readWrite',
        returned: 'default',
        subAttributes: [text('value'), text('displayName', { mutability: 'readOnly' })],
      },
    ],
  },
];

/** `ServiceProviderConfig`: PATCH, filters and ETags yes; bulk, sorting and password changes no; bearer tokens. */
export function serviceProviderConfig(base: string): Record<string, unknown> {
  return {
    schemas: [`${CORE}:ServiceProviderConfig`],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: true },
    authenticationSchemes: [
      { type: 'oauthbearertoken', name: 'OAuth Bearer Token', description: 'A SCIM token of the organization (made on its SSO and SCIM settings), in Authorization: Bearer', primary: true },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

/** `ResourceTypes`: users (with the enterprise extension) and groups. */
export function resourceTypes(base: string): Array<Record<string, unknown>> {
  return [
    {
      schemas: [`${CORE}:ResourceType`],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: USER_SCHEMA,
      schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    { schemas: [`${CORE}:ResourceType`], id: 'Group', name: 'Group', endpoint: '/Groups', schema: GROUP_SCHEMA, meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` } },
  ];
}

/** `Schemas`: the attributes of users, groups and the enterprise extension that this service keeps. */
export function schemas(base: string): Array<Record<string, unknown>> {
  return SCHEMAS.map((s) => ({ schemas: [`${CORE}:Schema`], ...s, meta: { resourceType: 'Schema', location: `${base}/Schemas/${s.id}` } }));
}

/** A list answer (RFC 7644 §3.4.2). */
export function listResponse(resources: unknown[], total = resources.length, startIndex = 1): Record<string, unknown> {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}
