import { messagesCsv, messagesJson } from '../../format/messages.js';
import { MESSAGES_TYPES, queryMessages } from '../../query/messages.js';
import { defineRoute } from '../operation.js';
import { enumParam, marketParam, theOne, timeParam } from '../params.js';

/** GET /api/messages (spec 4.5). */
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
});
