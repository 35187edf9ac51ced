import { LevelDatabase } from './level-database';
import { UserRepository } from '../../core/users/user-repository';

/** Users in an embedded LevelDB folder (one process at a time); what an older version kept there is read on first use. */
export class LevelUserStore extends UserRepository {
  /** @param path - the database folder; created when missing. */
  constructor(path: string) {
    super(new LevelDatabase(`level://${path}`));
  }
}
