// Generated from the server's GET /api/openapi.json by scripts/openapi-to-typescript.ts: do not edit.
// src/openapi-types.test.ts regenerates it from the app and fails on any difference; after a change
// to the API run `npx vitest run packages/client/src/openapi-types.test.ts -u` to rewrite it.
/** Every JSON operation of the API: its path and the query parameters it accepts. */
export const OPERATIONS = {
    ticker: { path: '/api/ticker', parameters: ['futures', 'options', 'type', 'date', 'from', 'to', 'format'] },
    epi: { path: '/api/epi', parameters: ['date', 'format'] },
    npi: { path: '/api/npi', parameters: ['date', 'format'] },
    tradelog: { path: '/api/tradelog', parameters: ['market', 'futures', 'options', 'date', 'format'] },
    messages: { path: '/api/messages', parameters: ['market', 'type', 'from', 'format'] },
    trades: { path: '/api/trades', parameters: ['market', 'futures', 'options', 'from', 'format'] },
    data: { path: '/api/data', parameters: ['futures', 'options', 'date', 'format'] },
    intraday: { path: '/api/intraday', parameters: ['futures', 'options', 'format'] },
    datamine: { path: '/api/datamine', parameters: ['type', 'from', 'to', 'date', 'format'] },
};
//# sourceMappingURL=openapi-types.js.map