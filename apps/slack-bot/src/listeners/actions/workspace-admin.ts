import { type PersonRef, WorkspaceBudgetError, WorkspaceServerError } from '@ai-assistant/assistant';
import { HostError } from '@ai-assistant/host-core';
import type {
  AllMiddlewareArgs,
  App,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackViewMiddlewareArgs,
  StaticSelectAction,
} from '@slack/bolt';
import { isWorkspaceAdmin } from '../../slack/admins.js';
import { personOf } from '../../slack/people.js';
import { adminActions, parseApprovalValue, serverFields } from '../../slack/workspace-admin.js';
import {
  addedModal,
  addServerModal,
  blockOfField,
  budgetsModal,
  limitsOf,
  serverInputOf,
  testedText,
  testFailedText,
} from '../../slack/workspace-admin-modals.js';
import { type AppHomeDependencies, publish } from '../events/app-home.js';

type WebClient = App['client'];
type Body = { team?: { id?: string } | null; user: { id: string; team_id?: string } };
type StateValues = Parameters<typeof serverInputOf>[0];

const whoActs = (body: Body) => personOf({ team: body.team?.id ?? body.user.team_id, user: body.user.id });

/** What an admin is told when a change cannot be made (a server's error is already plain words). */
const problemOf = (error: unknown) =>
  error instanceof HostError ? error.message : 'Something went wrong; the change was not made. Try again.';

/**
 * Every admin action is checked with Slack (`users.info`) when it arrives, whatever the view showed:
 * a member's forged press or submission is refused and logged.
 */
async function admitted(
  client: WebClient,
  person: PersonRef,
  what: string,
  dependencies: AppHomeDependencies,
): Promise<boolean> {
  if (await isWorkspaceAdmin(client, person.user)) return true;
  dependencies.logger.warn(
    { ...person, action: what },
    'an admin action from someone who is not an admin was refused',
  );
  return false;
}

/** Add a server / Budgets: open their modals (admins only). */
function onOpen(which: 'add' | 'budgets', dependencies: AppHomeDependencies) {
  return async ({
    ack,
    body,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const person = whoActs(body);
    try {
      if (!(await admitted(client, person, which, dependencies))) return;
      const view =
        which === 'add'
          ? addServerModal()
          : budgetsModal(
              await dependencies.people.limits(person.workspace),
              dependencies.people.limitCeiling(),
            );
      await client.views.open({ trigger_id: body.trigger_id, view } as unknown as Parameters<
        WebClient['views']['open']
      >[0]);
    } catch (error) {
      dependencies.logger.warn({ ...person, error }, 'could not open an admin modal');
    }
  };
}

/** Test, inside the add-a-server modal: connects once and shows the tools or what to fix. */
function onTest(dependencies: AppHomeDependencies) {
  return async ({
    ack,
    body,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const person = whoActs(body);
    const view = body.view;
    if (!view?.id) return;
    try {
      if (!(await admitted(client, person, 'test a server', dependencies))) return;
      const { input, token } = serverInputOf((view.state?.values ?? {}) as StateValues);
      const result = await dependencies.people.testServer(person, input, token).then(
        ({ tools }) => testedText(tools),
        (error: unknown) => testFailedText(problemOf(error)),
      );
      await client.views.update({
        view_id: view.id,
        ...(view.hash ? { hash: view.hash } : {}),
        view: addServerModal(result),
      } as unknown as Parameters<WebClient['views']['update']>[0]);
    } catch (error) {
      dependencies.logger.warn({ ...person, error }, 'could not test a server');
    }
  };
}

/** The add-a-server modal's submission: admin checked, then Test and add; a problem is shown on its field. */
function onAddSubmitted(dependencies: AppHomeDependencies) {
  return async ({ ack, body, view, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const person = whoActs(body);
    if (!(await admitted(client, person, 'add a server', dependencies)))
      return void (await ack({
        response_action: 'errors',
        errors: { [serverFields.name]: 'Only workspace admins and owners can add servers.' },
      }));
    const { input, token } = serverInputOf(view.state.values as StateValues);
    try {
      const tools = await dependencies.people.addServer(person, input, token);
      await ack({
        response_action: 'update',
        view: addedModal(input.name.trim().toLowerCase(), tools),
      } as never);
    } catch (error) {
      const field = error instanceof WorkspaceServerError ? blockOfField(error.field) : serverFields.url;
      if (!(error instanceof HostError))
        dependencies.logger.warn({ ...person, error }, 'could not add a server');
      return void (await ack({
        response_action: 'errors',
        errors: { [field]: problemOf(error).slice(0, 2000) },
      }));
    }
    await publish(client, person, dependencies).catch((error: unknown) =>
      dependencies.logger.warn({ ...person, error }, 'could not publish the App Home'),
    );
  };
}

/** The budgets modal's submission (admins only). */
function onBudgetsSubmitted(dependencies: AppHomeDependencies) {
  return async ({ ack, body, view, client }: SlackViewMiddlewareArgs & AllMiddlewareArgs) => {
    const person = whoActs(body);
    const { limits, invalid } = limitsOf(view.state.values as StateValues);
    if (!(await admitted(client, person, 'budgets', dependencies)))
      return void (await ack({
        response_action: 'errors',
        errors: { tokensPerPersonDay: 'Only workspace admins and owners can set budgets.' },
      }));
    if (invalid.length > 0)
      return void (await ack({
        response_action: 'errors',
        errors: Object.fromEntries(invalid.map((name) => [name, 'A whole number above 0, or empty.'])),
      }));
    try {
      await dependencies.people.setLimits(person, limits);
      await ack();
    } catch (error) {
      if (!(error instanceof WorkspaceBudgetError))
        dependencies.logger.warn({ ...person, error }, 'could not save budgets');
      return void (await ack({
        response_action: 'errors',
        errors: {
          [error instanceof WorkspaceBudgetError ? error.field : 'tokensPerPersonDay']: problemOf(error),
        },
      }));
    }
    await publish(client, person, dependencies).catch(() => {});
  };
}

/** Remove (a workspace's own server) and the approval select: admin checked, then published again. */
function onServerChange(which: 'remove' | 'approval', dependencies: AppHomeDependencies) {
  return async ({
    ack,
    body,
    action,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction | StaticSelectAction>> & AllMiddlewareArgs) => {
    await ack();
    const person = whoActs(body);
    try {
      if (!(await admitted(client, person, which, dependencies))) return;
      const { people } = dependencies;
      if (which === 'remove' && action.type === 'button')
        await people.removeServer(person, action.value ?? '');
      if (which === 'approval' && action.type === 'static_select') {
        const chosen = parseApprovalValue(action.selected_option.value);
        // Only a server this workspace has: the select's value is the person's to forge.
        if (chosen && (await people.servers(person)).some((server) => server.name === chosen.server))
          await people.setApproval(person, chosen.server, chosen.policy);
      }
      await publish(client, person, dependencies);
    } catch (error) {
      dependencies.logger.warn({ ...person, action: which, error }, 'an App Home admin action failed');
    }
  };
}

/** The admins' App Home controls: add, test and remove servers, approval per server, budgets. */
export function register(app: App, dependencies: AppHomeDependencies): void {
  app.action<BlockAction<ButtonAction>>(adminActions.addServer, onOpen('add', dependencies));
  app.action<BlockAction<ButtonAction>>(adminActions.budgets, onOpen('budgets', dependencies));
  app.action<BlockAction<ButtonAction>>(adminActions.testServer, onTest(dependencies));
  app.action<BlockAction<ButtonAction>>(adminActions.removeServer, onServerChange('remove', dependencies));
  app.action<BlockAction<StaticSelectAction>>(
    adminActions.approval,
    onServerChange('approval', dependencies),
  );
  app.view(adminActions.addModal, onAddSubmitted(dependencies));
  app.view(adminActions.budgetsModal, onBudgetsSubmitted(dependencies));
}
