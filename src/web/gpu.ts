/**
 * Whether this browser's GPU runs float16 shaders (WebGPU's shader-f16), asked from the page with no
 * runtime loaded: the native run is offered only then.
 */
export async function webgpuHasShaderF16(): Promise<boolean> {
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<{ features: ReadonlySet<string> } | null> } } | undefined)?.gpu;
  if (!gpu) return false;
  try {
    return Boolean((await gpu.requestAdapter())?.features.has('shader-f16'));
  } catch {
    return false;
  }
}
