// wgsl_reflect's `main` entry is CommonJS-only; its ES module lives at this path and has the same API.
declare module 'wgsl_reflect/wgsl_reflect.module.js' {
  export * from 'wgsl_reflect';
}
