import { describe, expect, it } from 'vitest';
import { billToSlices, type CpuProfile, type Slice } from '../../bench/profile-slices.js';

/** bench/serial-profile's billing: each profile sample goes to the side whose slice held it. */
describe('bench/profile-slices: a profile billed to interleaved slices', () => {
  // three functions; samples every 10 µs from t = 1,000
  const nodes: CpuProfile['nodes'] = [
    { id: 1, callFrame: { url: 'file:///x/node_modules/memdown/memdown.js', functionName: 'callNext' } },
    { id: 2, callFrame: { url: 'file:///x/kernel/drafts.ts', functionName: 'createDraft' } },
    { id: 3, callFrame: { url: '', functionName: '(garbage collector)' } },
  ];
  const profile = (samples: number[]): CpuProfile => ({ nodes, startTime: 1_000, samples, timeDeltas: samples.map(() => 10) });
  const byFunction = (frame: CpuProfile['nodes'][number]['callFrame']) => frame.functionName;

  it('bills each sample to the slice it fell in, by key, and skips samples between slices', () => {
    // samples at 1,010 … 1,080
    const slices: Slice<'put' | 'engine'>[] = [
      [1_005, 1_025, 'put'], // 1,010 and 1,020
      [1_035, 1_055, 'engine'], // 1,040 and 1,050 (1,030 falls between: nobody's)
      [1_058, 1_075, 'put'], // 1,060 and 1,070 (1,080 after the last slice: nobody's)
    ];
    const billed = billToSlices(profile([1, 1, 3, 2, 2, 3, 1, 2]), slices, ['put', 'engine'], byFunction, 7);
    expect(Object.fromEntries(billed.put)).toEqual({ callNext: 30, '(garbage collector)': 10 });
    expect(Object.fromEntries(billed.engine)).toEqual({ createDraft: 20 });
  });

  it('gives the last sample the fallback length, and a sample on a slice edge to that slice', () => {
    const billed = billToSlices(profile([2, 2]), [[1_010, 1_020, 'engine']], ['engine'], byFunction, 7);
    expect(billed.engine.get('createDraft')).toBe(10 + 7);
  });
});
