// Workers (and workerd's wasm modules) import a .wasm file as a compiled module.
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
