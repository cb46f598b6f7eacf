import type { ApprovalDecision, ApprovalRequest } from '@ai-assistant/host-core';

/** What the person is asked, written by the host: tool, server, effect and every argument, whole. */
export function approvalSummary(request: ApprovalRequest): string {
  const effect = request.hints.readOnly
    ? 'read-only'
    : request.hints.destructive
      ? 'may change or delete data'
      : 'changes data';
  // Every argument, whole: a person approves exactly what the tool will receive.
  const args = Object.entries(request.arguments).map(([name, value]) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return `    ${name} = ${text}`;
  });
  const secrets = request.hidesSecrets
    ? '\n    (a secret among them is shown as [REDACTED]; approving sends its real value)'
    : '';
  return `🔐 ${request.tool} (server ${request.server}, ${effect}) wants to run${args.length ? ` with:\n${args.join('\n')}` : ''}${secrets}\n`;
}

/** `y`/`yes` approves; empty, `n`/`no` deny; anything else denies with that text as the reason. */
export function approvalAnswer(line: string): ApprovalDecision {
  const answer = line.trim();
  if (/^(y|yes)$/i.test(answer)) return { outcome: 'approved' };
  if (answer === '' || /^(n|no)$/i.test(answer)) return { outcome: 'denied' };
  return { outcome: 'denied', reason: answer };
}
