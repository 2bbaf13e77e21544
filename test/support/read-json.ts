/**
 * A response body parsed as JSON, typed loosely: tests inspect bodies field by field and assert
 * their shape with expect(), so a static type per body would only restate the assertions.
 */
export type JsonBody = any;

export async function readJson(res: Response): Promise<JsonBody> {
  return res.json();
}
