/** One request of a tenant to the bench's server, answered with its status and JSON body. */
export async function tenantRequest(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: object,
): Promise<{
  status: number;
  json: { id?: string; runs?: Array<{ status: string }>; error?: { code: string } };
}> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as never };
}
