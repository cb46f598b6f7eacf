import { AuthorizationError } from './authorization-error.js';
import { mergeScopes } from './discovery.js';
import { type GrantOwner, keyOf } from './grants.js';
import { bearerChallenge } from './sdk-auth.js';

/** How many times in a row a server may ask for more access (403 insufficient_scope) before the host stops. */
export const stepUpLimit = 2;
/** A step-up is remembered this long (a state's lifetime) after the server last asked. */
const rememberedMs = 10 * 60_000;

/** What a server asked one person for, and how many sign-ins answered it so far. */
interface Asked {
  /** The scope the next sign-in asks for: what was granted before and every scope asked since. */
  scope: string;
  /** Sign-ins completed for a step-up, in a row. */
  count: number;
  /** The last 403 came after the last of those sign-ins: a new one is wanted. */
  unanswered: boolean;
  /** The scope the last 403 named, when the token already had all of it (another sign-in cannot help). */
  held?: string;
  at: number;
}

/**
 * Scopes servers asked people for with 403 `insufficient_scope`, and how many sign-ins answered them
 * in a row. The count survives those sign-ins (a server asking again after each is the loop to stop);
 * it is forgotten 10 minutes after the server last asked, or when the person disconnects.
 */
export class StepUps {
  private readonly asked = new Map<string, Asked>();

  constructor(private readonly now: () => Date) {}

  /**
   * A person's connection met a challenge: a 403 `insufficient_scope` names the scope to ask for,
   * added to `granted` (the scope the person's token has) and to what was asked before.
   */
  note(person: GrantOwner, server: string, response: Response, granted: string | undefined): void {
    if (response.status !== 403) return;
    const { error, scope } = bearerChallenge(response.headers.get('www-authenticate'));
    if (error !== 'insufficient_scope' || !scope) return;
    const key = keyOf(person, server);
    const earlier = this.fresh(this.asked.get(key));
    const has = new Set((granted ?? '').split(' ').filter(Boolean));
    const wanted = scope.split(' ').filter(Boolean);
    this.asked.set(key, {
      scope: mergeScopes(mergeScopes(granted, earlier?.scope ?? ''), scope),
      count: earlier?.count ?? 0,
      unanswered: true,
      ...(granted !== undefined && wanted.every((name) => has.has(name)) ? { held: scope } : {}),
      at: this.now().getTime(),
    });
  }

  /**
   * The scope the next sign-in asks for, when the server asked for more since the last one (then the
   * sign-in counts as a step-up); throws once another sign-in cannot help: the server asked more than
   * {@link stepUpLimit} times in a row, or for a scope the token already had.
   */
  pending(person: GrantOwner, server: string): { scope: string } | undefined {
    const found = this.fresh(this.asked.get(keyOf(person, server)));
    if (!found?.unanswered) return undefined;
    if (found.held !== undefined)
      throw new AuthorizationError(
        server,
        'scope',
        `the server refused the token for lacking "${found.held.slice(0, 200)}", which it already has: signing in again would not change that; ask the server's administrator to give your account that access`,
      );
    if (found.count >= stepUpLimit)
      throw new AuthorizationError(
        server,
        'scope',
        `the server asked for more access ${found.count + 1} times in a row (now "${found.scope.slice(0, 200)}"); stopped after ${stepUpLimit} tries: ask the server's administrator which access your account needs, then connect again in 10 minutes`,
      );
    return { scope: found.scope };
  }

  /** A sign-in that asked for {@link pending}'s scope completed: one more step-up in a row. */
  answered(person: GrantOwner, server: string): void {
    const found = this.fresh(this.asked.get(keyOf(person, server)));
    if (found) this.asked.set(keyOf(person, server), { ...found, count: found.count + 1, unanswered: false });
  }

  forget(person: GrantOwner, server: string): void {
    this.asked.delete(keyOf(person, server));
  }

  private fresh(found: Asked | undefined): Asked | undefined {
    return found && this.now().getTime() - found.at < rememberedMs ? found : undefined;
  }
}
