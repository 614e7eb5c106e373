// Types for the page's import of ONNX Runtime Web's native WebGPU build, served from node_modules
// ('/node_modules/onnxruntime-web/dist/ort.webgpu.min.mjs'); tsconfig.json maps that URL here.
export * from 'onnxruntime-web/webgpu';
