/** Chat replies are short: at most this many characters, cut at a line where possible. */
export const MAX_REPLY_CHARS = 1500;

/**
 * The reply as sent: any configured key replaced (a defence: no path should put one there), then
 * cut to MAX_REPLY_CHARS at the last whole line with a note saying how to see the rest.
 */
export function finishReply(text: string, secrets: readonly string[]): string {
  let reply = text;
  for (const secret of secrets) if (secret.length >= 8) reply = reply.split(secret).join('[redacted]');
  if (reply.length <= MAX_REPLY_CHARS) return reply;
  const note = '\n… (cut; the console or `orch` shows everything)';
  const room = MAX_REPLY_CHARS - note.length;
  const cut = reply.lastIndexOf('\n', room);
  return `${reply.slice(0, cut > room / 2 ? cut : room)}${note}`;
}
