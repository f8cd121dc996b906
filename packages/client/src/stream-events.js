/** The query parameters the client sends (it resumes with the Last-Event-ID header, not a parameter). */
export const STREAM_PARAMETERS = [
    'futures',
    'options',
    'market',
    'publications',
    'type',
    'messages',
    'from',
];
const KINDS = new Set([
    'book',
    'trade',
    'settle',
    'message_board',
    'registered_trades',
    'custom_market',
    'publication',
]);
/** The typed event of a message, or undefined for a kind this version of the client does not know. */
export function toStreamEvent(message) {
    if (!KINDS.has(message.event))
        return undefined;
    return { id: message.id, event: message.event, data: JSON.parse(message.data) };
}
//# sourceMappingURL=stream-events.js.map