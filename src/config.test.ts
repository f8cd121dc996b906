import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

describe('config', () => {
  it('has defaults and is frozen', () => {
    const config = loadConfig({});
    expect(config).toEqual({ db: undefined, port: 8080, host: '127.0.0.1' });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads GRIDQUOTE_DB, PORT and HOST', () => {
    expect(loadConfig({ GRIDQUOTE_DB: 'a.db', PORT: '9000', HOST: '0.0.0.0' })).toEqual({
      db: 'a.db',
      port: 9000,
      host: '0.0.0.0',
    });
  });

  it.each([
    { PORT: 'eighty' },
    { PORT: '70000' },
    { PORT: '-1' },
    { PORT: '' },
    { GRIDQUOTE_DB: ' ' },
    { HOST: '' },
  ])('refuses %j', (env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
  });
});
