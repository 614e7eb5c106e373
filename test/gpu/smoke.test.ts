import { expect } from 'vitest';
import { gpuTest } from '../helpers/gpu.js';

gpuTest('smoke', async (g) => {
  const e = await g.engine();
  const x = { dtype: 'float32', shape: [2, 6], data: new Float32Array([1,2,3,4,5,6,7,8,9,10,11,12]) } as const;
  const outs = await e.split(x, { axis: 1, sizes: [2, 4] });
  expect(outs.map((o) => [...o.data])).toEqual([[1,2,7,8],[3,4,5,6,9,10,11,12]]);
  console.log(e.stats);
  const u = await e.split({ dtype: 'uint8', shape: [3, 5], data: new Uint8Array([...Array(15).keys()]) }, { axis: 1, sizes: [1, 3, 1] });
  expect(u.map((o) => [...o.data])).toEqual([[0,5,10],[1,2,3,6,7,8,11,12,13],[4,9,14]]);
  console.log(e.stats);
  const gx = e.upload(x);
  const go = await e.split(gx, { axis: 1, parts: 4 });
  console.log(e.stats, go.map(t=>[t.shape, t.byteOffset, t.byteLength]));
  const back = await Promise.all(go.map((t) => e.download(t)));
  expect(back.map((o) => [...o.data])).toEqual([[1,2,7,8],[3,4,9,10],[5,6,11,12],[]]);
});
