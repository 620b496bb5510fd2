/**
 * A CPU profile's samples billed to the slices of work they fell in (bench/serial-profile): each
 * side of an interleaved step notes the span of each of its slices, and a sample taken inside a
 * span is that side's. Samples between spans (opening and dropping stores) are nobody's.
 */

/** The parts of a V8 CPU profile (the inspector's Profiler.stop) read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { url: string; functionName: string } }[];
  /** microseconds, on the monotonic clock process.hrtime reads */
  startTime: number;
  samples: number[];
  /** microseconds since the sample before (the first: since startTime) */
  timeDeltas: number[];
}

/** One slice: [start, end] in the profile's clock (µs), and whose it was. Slices never overlap. */
export type Slice<S extends string> = [number, number, S];

/**
 * Per side, the microseconds billed to each key (`keyOf` a sample's frame: its file, say). A
 * sample stands for the time up to the next sample (`fallbackUs` for the last). `slices` in the
 * order they ran.
 */
export function billToSlices<S extends string>(
  profile: CpuProfile,
  slices: readonly Slice<S>[],
  sides: readonly S[],
  keyOf: (frame: CpuProfile['nodes'][number]['callFrame']) => string,
  fallbackUs = 100,
): Record<S, Map<string, number>> {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const billed = Object.fromEntries(sides.map((side) => [side, new Map<string, number>()])) as Record<S, Map<string, number>>;
  let time = profile.startTime;
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i];
    while (at < slices.length && slices[at][1] < time) at++;
    if (at >= slices.length || slices[at][0] > time) continue; // between slices: setup, not a write
    const frame = frames.get(profile.samples[i]);
    if (!frame) continue;
    const key = keyOf(frame);
    const side = billed[slices[at][2]];
    side.set(key, (side.get(key) ?? 0) + (profile.timeDeltas[i + 1] ?? fallbackUs));
  }
  return billed;
}
