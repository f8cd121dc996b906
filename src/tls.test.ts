import { describe, expect, it } from 'vitest';
import { tlsAlertOf } from './tls.js';

describe('a TLS alert', () => {
  it("is read from OpenSSL's error text, whatever the protocol version", () => {
    expect(
      tlsAlertOf(
        '80CC83AE6B7F0000:error:0A00045C:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 116\n',
      ),
    ).toBe('certificate required');
    expect(
      tlsAlertOf(
        'error:0A000418:SSL routines:ssl3_read_bytes:tlsv1 alert unknown ca:ssl/record/rec_layer_s3.c',
      ),
    ).toBe('unknown ca');
    expect(tlsAlertOf('SSL routines:ssl3_read_bytes:sslv3 alert bad certificate')).toBe('bad certificate');
  });

  it('is not found in other errors', () => {
    for (const message of [
      'write ECONNRESET',
      'self-signed certificate in certificate chain',
      'unable to verify the first certificate',
      '',
    ]) {
      expect(tlsAlertOf(message), message).toBe(undefined);
    }
  });
});
