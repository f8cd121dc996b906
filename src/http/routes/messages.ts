import { messagesCsv, messagesJson } from '../../format/messages.js';
import { MESSAGES_TYPES, queryMessages } from '../../query/messages.js';
import { defineRoute } from '../operation.js';
import { enumParam, marketParam, theOne, timeParam } from '../params.js';
import { messagesResponse } from '../response-schemas.js';

/** GET /api/messages (docs/api.md). */
export const messagesRoute = defineRoute({
  path: '/api/messages',
  spec: {
    params: { market: marketParam, type: enumParam(MESSAGES_TYPES), from: timeParam },
    required: ['market', 'type'],
  },
  run: (context, params) =>
    queryMessages(context, { market: theOne(params.market), type: theOne(params.type), from: params.from }),
  json: messagesJson,
  csv: messagesCsv,
  docs: {
    summary: "The current day's messages of a market",
    tag: 'intraday',
    description:
      'Message board, registered trades or custom markets (strategies) of the current trading day, newest ' +
      'first. Custom markets have no `date` in JSON; their unused legs read 0.00.',
    params: {
      type: 'Which messages.',
      from: 'Messages from this time on (inclusive).',
    },
    examples: {
      board: 'market=au_electricity&type=message_board',
      'registered-from': 'market=au_electricity&type=registered_trades&from=100000',
      custom: 'market=au_electricity&type=custom_market',
    },
    response: messagesResponse,
    csv:
      'Tab-separated: time, message; or contract, net, size, price_1..price_6, ratio_1..ratio_6 for ' +
      'custom_market.',
  },
});
