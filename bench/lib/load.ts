import autocannon from 'autocannon';

/** One load run's result. */
export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Options of a load run. */
export interface LoadOptions {
  url: string;
  seconds?: number;
  amount?: number;
  connections?: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Builds each request's body (distinct users...). */
  makeBody?: () => string;
  /** Builds headers added to each request (a distinct token per request...). */
  makeHeaders?: () => Record<string, string>;
}

/** Runs autocannon once and returns requests/s and latency percentiles (ms). */
export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 32,
    // Samples every 100 ms, so short runs end on time (the default ticks once a second).
    sampleInt: 100,
    ...(options.amount ? { amount: Math.round(options.amount) } : { duration: options.seconds ?? 3 }),
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    requests:
      options.makeBody || options.makeHeaders
        ? [
            {
              setupRequest: (req: Record<string, unknown>) => ({
                ...req,
                ...(options.makeBody ? { body: options.makeBody() } : {}),
                ...(options.makeHeaders ? { headers: { ...(req.headers as Record<string, string> | undefined), ...options.makeHeaders() } } : {}),
              }),
            },
          ]
        : undefined,
  } as autocannon.Options);
  return {
    rps: result.requests.total / Math.max(result.duration, 0.001),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
  };
}
