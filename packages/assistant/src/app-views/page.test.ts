import { describe, expect, it } from 'vitest';
import { frameCsp } from './page.js';

describe('#46 the CSP of an App view comes from its resource, and nothing else gets in', () => {
  it('#46 declared origins open only their directives; without them, no network and no frames', () => {
    const none = frameCsp(undefined);
    expect(none).toContain("connect-src 'none'");
    expect(none).toContain("frame-src 'none'");
    expect(none).toContain('sandbox allow-scripts');
    expect(none).toContain("frame-ancestors 'self'");
    expect(none).not.toContain('allow-same-origin');
    const declared = frameCsp({
      connectDomains: ['https://api.example.com'],
      resourceDomains: ['https://*.cdn.example.com'],
      frameDomains: ['https://www.youtube.com'],
    });
    expect(declared).toContain('connect-src https://api.example.com;');
    expect(declared).toContain('img-src data: blob: https://*.cdn.example.com;');
    expect(declared).toContain('frame-src https://www.youtube.com;');
  });

  it('#46 an origin that would add a directive or a keyword is dropped', () => {
    const csp = frameCsp({
      connectDomains: ['https://a.example.com; script-src *', "'unsafe-eval'", '*', 42],
    });
    expect(csp).toContain("connect-src 'none'");
    expect(csp).not.toContain('script-src *');
    expect(csp).not.toContain("'unsafe-eval'");
  });
});
