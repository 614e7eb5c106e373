// The device's own limits for moving the input's bytes, the yardsticks Cleave is held against:
// one copyBufferToBuffer (the copy limit) and a plain vec4<u32> copy kernel (the shader-copy limit).

import { createBuffer } from '../gpu-probe.mjs';
import { compare, readBuffer } from '../data.mjs';

/** @import { Env, Prepared, System } from '../../types.js' */

export const STORAGE = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;

// Workgroup size 256: the largest every adapter allows, and the fastest of 64/128/256 measured for this kernel.
export const COPY_WORKGROUP = 256;

const COPY_KERNEL = /* wgsl */ `
@group(0) @binding(0) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> dst: array<vec4<u32>>;
override WG: u32 = 64u;
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = (wid.y * nwg.x + wid.x) * WG + lid;
  if (i < arrayLength(&dst)) { dst[i] = src[i]; }
}`;

/** @param {GPUDevice} device */
export function makeCopyPipeline(device) {
  const module = device.createShaderModule({ code: COPY_KERNEL });
  return device.createComputePipeline({
    layout: 'auto',
    compute: { module, entryPoint: 'main', constants: { WG: COPY_WORKGROUP } },
  });
}

/**
 * Workgroups as an x-by-y grid, since one dimension holds at most maxComputeWorkgroupsPerDimension.
 * @param {number} groups @param {number} maxDim
 */
export function foldGrid(groups, maxDim) {
  const y = Math.ceil(groups / maxDim);
  return { x: Math.ceil(groups / y), y };
}

/**
 * The copy limit: one copyBufferToBuffer of the input's bytes (rounded up to 4).
 * @param {Prepared} c @param {Env} env @returns {System}
 */
export function copyLimit(c, env) {
  const { device } = env;
  const size = Math.max(4, Math.ceil(c.bytes / 4) * 4);
  const dst = createBuffer(device, { size, usage: STORAGE });
  const iter = () => {
    const enc = device.createCommandEncoder();
    enc.copyBufferToBuffer(env.gx.buffer, env.gx.byteOffset, dst, 0, size);
    device.queue.submit([enc.finish()]);
  };
  return limitSystem(c, env, 'copy-limit', iter, dst, [dst]);
}

/**
 * The shader-copy limit: the vec4<u32> kernel over the input's bytes (rounded up to 16).
 * @param {Prepared} c @param {Env} env @returns {System}
 */
export function shaderLimit(c, env) {
  const { device } = env;
  const pipeline = env.copyPipeline ?? makeCopyPipeline(device);
  const size = Math.max(16, Math.ceil(c.bytes / 16) * 16);
  const src = sourceOf(env, size);
  const dst = createBuffer(device, { size, usage: STORAGE });
  const bind = device.createBindGroup({
    layout: pipeline.getBindGroupLayout(0),
    entries: [
      { binding: 0, resource: { buffer: src.buffer, offset: src.offset, size } },
      { binding: 1, resource: { buffer: dst, offset: 0, size } },
    ],
  });
  const { x, y } = foldGrid(Math.ceil(size / 16 / COPY_WORKGROUP), device.limits.maxComputeWorkgroupsPerDimension);
  const iter = () => {
    const enc = device.createCommandEncoder();
    const pass = enc.beginComputePass();
    pass.setPipeline(pipeline);
    pass.setBindGroup(0, bind);
    pass.dispatchWorkgroups(x, y);
    pass.end();
    device.queue.submit([enc.finish()]);
  };
  return limitSystem(c, env, 'shader-limit', iter, dst, src.own ? [dst, src.own] : [dst]);
}

/**
 * The input as `size` readable bytes: in place, or a padded copy when its buffer is too short.
 * @param {Env} env @param {number} size
 */
function sourceOf(env, size) {
  const { device, gx } = env;
  if (gx.buffer.size - gx.byteOffset >= size && gx.byteOffset % 256 === 0)
    return { buffer: gx.buffer, offset: gx.byteOffset };
  const own = createBuffer(device, { size, usage: STORAGE });
  const enc = device.createCommandEncoder();
  enc.copyBufferToBuffer(gx.buffer, gx.byteOffset, own, 0, Math.ceil(gx.byteLength / 4) * 4);
  device.queue.submit([enc.finish()]);
  return { buffer: own, offset: 0, own };
}

/**
 * A limit system: `iter` copies the input's bytes into `dst`, which verify reads back.
 * @param {Prepared} c @param {Env} env @param {'copy-limit' | 'shader-limit'} key @param {() => void} iter
 * @param {GPUBuffer} dst @param {GPUBuffer[]} owned  destroyed on close
 * @returns {System}
 */
function limitSystem(c, env, key, iter, dst, owned) {
  const { device } = env;
  return {
    key,
    gpuTimed: true,
    outputBytes: 0,
    run: {
      iter,
      sync: () => device.queue.onSubmittedWorkDone(),
      free: () => {},
      check: async () => compare([await readBuffer(device, dst, 0, c.bytes)], [c.input], key),
      close() {
        for (const b of owned) b.destroy();
      },
    },
  };
}
