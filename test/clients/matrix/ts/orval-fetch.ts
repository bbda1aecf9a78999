// orval's documented custom fetch (`override.mutator`, orval.dev "Custom client"): orval's own fetch
// client parses every body as JSON, so a binary answer (runJob's result) would not survive it. This
// one reads JSON answers as JSON and any other as a Blob, and returns orval's `{ data, status, headers }`.
export const quireFetch = async <T>(url: string, options: RequestInit): Promise<T> => {
  const response = await fetch(url, options);
  const type = response.headers.get('content-type') ?? '';
  const data = [204, 205, 304].includes(response.status)
    ? {}
    : /json/i.test(type)
      ? await response.json()
      : await response.blob();
  return { data, status: response.status, headers: response.headers } as T;
};
