/** The error codes of the account service: kidstuff/WebAuth's 1.0 to 1.9 (1.8 unused), then authgate's from 2.0. */
export type AccountErrorCode = 1.0 | 1.1 | 1.2 | 1.3 | 1.4 | 1.5 | 1.6 | 1.7 | 1.9 | 2.0 | 2.1 | 2.2 | 2.3;

const MESSAGES: Record<AccountErrorCode, string> = {
  1.0: 'InvalidInput',
  1.1: 'InvalidGrantType',
  1.2: 'InvalidCredential',
  1.3: 'PwdMismatch',
  1.4: 'InvalidPwd',
  1.5: 'DupEmail',
  1.6: 'InvalidEmail',
  1.7: 'InvalidId',
  1.9: 'NotExistId',
  2.0: 'InvalidCode',
  2.1: 'NotLinked',
  2.2: 'LastLogin',
  2.3: 'SecondFactor',
};

/** An account-service error, answered as `{Code, Message, Description}` with `status`. */
export class AccountError extends Error {
  override readonly name = 'AccountError';

  /**
   * @param status - HTTP status.
   * @param code - the error code.
   * @param description - what went wrong, for people.
   * @param label - the `Message` field. @default the code's name, e.g. 'InvalidInput'
   */
  constructor(
    readonly status: number,
    readonly code: AccountErrorCode,
    readonly description: string,
    private readonly label: string = MESSAGES[code],
  ) {
    super(description);
  }

  /** The JSON body. */
  toJSON(): { Code: number; Message: string; Description: string } {
    return { Code: this.code, Message: this.label, Description: this.description };
  }
}
