/**
 * The last `count` lines of a suite's output (runners print their summary last), without the
 * trailing blank ones. The runner (src/worker-sdk/project-command.ts) already kept only the end
 * of the output, up to the lane's cap.
 */
export function tailLines(text: string, count: number): string {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\s+$/, '').split('\n');
  return lines.slice(-count).join('\n');
}
