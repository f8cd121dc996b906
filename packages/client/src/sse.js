export class SseParser {
    buffer = '';
    lastEventId = '';
    event = '';
    data = [];
    hasData = false;
    /** The server's `retry:` advice in milliseconds, if it sent one. */
    retryMs;
    constructor(lastEventId = '') {
        this.lastEventId = lastEventId;
    }
    push(chunk) {
        this.buffer += chunk;
        const messages = [];
        for (;;) {
            const end = this.buffer.search(/\r\n|\r|\n/);
            if (end === -1)
                break;
            // A lone \r at the end of a chunk may be the first half of \r\n: wait for the next chunk.
            if (this.buffer[end] === '\r' && end === this.buffer.length - 1)
                break;
            const line = this.buffer.slice(0, end);
            this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
            const message = this.line(line);
            if (message !== undefined)
                messages.push(message);
        }
        return messages;
    }
    line(line) {
        if (line === '')
            return this.dispatch();
        if (line.startsWith(':'))
            return undefined;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' '))
            value = value.slice(1);
        switch (field) {
            case 'event':
                this.event = value;
                break;
            case 'data':
                this.data.push(value);
                this.hasData = true;
                break;
            case 'id':
                if (!value.includes('\u0000'))
                    this.lastEventId = value;
                break;
            case 'retry':
                if (/^\d+$/.test(value))
                    this.retryMs = Number(value);
                break;
            default:
                break;
        }
        return undefined;
    }
    dispatch() {
        const message = this.hasData
            ? {
                id: this.lastEventId,
                event: this.event === '' ? 'message' : this.event,
                data: this.data.join('\n'),
            }
            : undefined;
        this.event = '';
        this.data = [];
        this.hasData = false;
        return message;
    }
}
//# sourceMappingURL=sse.js.map