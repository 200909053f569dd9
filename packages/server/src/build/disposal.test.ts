import { describe, expect, it } from 'vitest';
import { DisposalStack } from './disposal.js';

describe('DisposalStack', () => {
  it('closes last opened first, all of them even when one fails, and rejects with that failure', async () => {
    const stack = new DisposalStack();
    const closed: string[] = [];
    stack.push(() => void closed.push('store'));
    stack.push(() => {
      closed.push('app');
      throw new Error('app would not close');
    });
    stack.push(async () => void closed.push('runtime'));
    await expect(stack.close()).rejects.toThrow('app would not close');
    expect(closed).toEqual(['runtime', 'app', 'store']);
    // A second close shares the first one's outcome and closes nothing again.
    await expect(stack.close()).rejects.toThrow('app would not close');
    expect(closed).toHaveLength(3);
  });

  it("closes what a failed build opened, then rethrows the build's error", async () => {
    const stack = new DisposalStack();
    const closed: string[] = [];
    const built = stack.build(async () => {
      stack.push(() => void closed.push('store'));
      stack.push(() => {
        throw new Error('close failed too');
      });
      throw new Error('bad setting');
    });
    await expect(built).rejects.toThrow('bad setting');
    expect(closed).toEqual(['store']);
  });
});
