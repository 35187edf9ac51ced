import type { Account } from '../../src/accounts';

/** An activated account with the given id, e-mail and password hash, for filling benchmark stores. */
export function benchAccount(id: string, email: string, pwdHash: string): Account {
  const now = new Date().toISOString();
  return {
    Id: id,
    Email: email,
    Pwd: pwdHash,
    OldPwd: [],
    Approved: true,
    ConfirmCodes: {},
    Privilege: {},
    Profile: { FirstName: '', LastName: '', MiddleName: '', NickName: '', Address: '', Phone: '', Company: '' },
    JoinDay: now,
    LastActivity: now,
  };
}
