/**
 * Creating ONNX Runtime sessions on a chosen execution provider. A provider named alone that
 * cannot start is an error that says why and how to install it; a preference list (or 'auto')
 * falls through to the next provider and says what happened. The provider that ran is returned
 * so every command can print it.
 */
import type { InferenceSession } from 'onnxruntime-node';
import { AmpError } from '../onnx/errors.js';
import { loadOrt, runtimeLogLevel, runtimeLogSeverity, type Ort } from './ort.js';
import { providerUnavailable } from './native-libraries.js';
import { withFloat16Bits } from './float16-bits.js';

export const PROVIDERS = ['cuda', 'webgpu', 'cpu'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** The end of the CUDA hint outside doctor; doctor's own report leaves it out. */
export const DOCTOR_POINTER = ' (amp-rewrite doctor says what is missing)';

const INSTALL_HINTS: Record<Provider, string> = {
  cuda:
    'the CUDA provider is not installed beside ONNX Runtime: ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js ' +
    `(downloads it), or offline amp-rewrite doctor --cuda-provider-dir <folder> --install; it needs CUDA 12 and cuDNN 9${DOCTOR_POINTER}`,
  webgpu: 'no WebGPU adapter: the WebGPU provider needs a GPU with a Vulkan driver (libvulkan.so.1)',
  cpu: 'the CPU provider should always load; reinstall onnxruntime-node (npm ci)',
};

/**
 * A provider's start failure without the install hint the session added: doctor's report gives the
 * route itself (its "missing" list), and must not point the reader at doctor.
 */
export function withoutInstallHint(provider: Provider, reason: string): string {
  const hint = INSTALL_HINTS[provider];
  return reason.includes(hint) ? reason.replace(`; ${hint}`, '').replace(hint, '').trim() : reason.replace(DOCTOR_POINTER, '');
}

/** Parses --ep: a provider, a comma list in preference order, or 'auto' (cuda,webgpu,cpu). */
export function parseProviders(spec: string): Provider[] {
  if (spec === 'auto') return [...PROVIDERS];
  const list = spec.split(',').map((s) => s.trim()).filter(Boolean);
  for (const name of list) {
    if (!(PROVIDERS as readonly string[]).includes(name)) {
      throw new AmpError('BAD_OPTION', `--ep ${spec}: unknown provider '${name}' (choose from ${PROVIDERS.join(', ')}, or auto)`);
    }
  }
  if (!list.length) throw new AmpError('BAD_OPTION', '--ep needs a provider: cuda, webgpu, cpu or auto');
  return list as Provider[];
}

export { AS_WRITTEN } from './session-options.js';

export interface OpenedSession {
  session: InferenceSession;
  provider: Provider;
  /** Providers tried before this one, and why each could not start. */
  skipped: Array<{ provider: Provider; reason: string }>;
  ort: Ort;
}

export async function openSession(model: Uint8Array | string, providers: readonly Provider[], options: InferenceSession.SessionOptions = {}): Promise<OpenedSession> {
  const ort = await loadOrt();
  // Native errors for a provider that cannot load are reported by us, once, in one line.
  ort.env.logLevel = runtimeLogLevel();
  const skipped: OpenedSession['skipped'] = [];
  for (const provider of providers) {
    try {
      const unavailable = providerUnavailable(provider);
      if (unavailable) {
        skipped.push({ provider, reason: unavailable });
        continue;
      }
      const sessionOptions = { logSeverityLevel: runtimeLogSeverity(), ...options, executionProviders: [provider] };
      const session = await createSession(ort, model, sessionOptions);
      return { session, provider, skipped, ort };
    } catch (error) {
      const message = (error as Error).message.split('\n')[0] ?? '';
      if (!/provider|shared library|adapter|Vulkan|CUDA|cuda|webgpu|WebGPU/i.test(message) && provider === 'cpu') {
        throw new AmpError('RUNTIME_FAILED', `ONNX Runtime cannot load the model: ${message}`, { cause: error });
      }
      skipped.push({ provider, reason: message });
    }
  }
  const last = skipped[skipped.length - 1];
  const tried = skipped.map((s) => s.provider).join(', ');
  const hint = last ? INSTALL_HINTS[last.provider] : '';
  throw new AmpError('RUNTIME_UNAVAILABLE', `no execution provider could start (tried ${tried}): ${last?.reason ?? ''}; ${hint}`);
}

/**
 * Every ONNX Runtime session this tool opens is made here: its float16 inputs and outputs cross
 * as raw bits on every Node.js version (float16-bits.ts).
 */
export async function createSession(ort: Ort, model: Uint8Array | string, options: InferenceSession.SessionOptions = {}): Promise<InferenceSession> {
  const session = typeof model === 'string' ? await ort.InferenceSession.create(model, options) : await ort.InferenceSession.create(model, options);
  return withFloat16Bits(session);
}

export function describeProvider(opened: Pick<OpenedSession, 'provider' | 'skipped'>): string {
  const skipped = opened.skipped.map((s) => `${s.provider} unavailable`).join(', ');
  return `execution provider: ${opened.provider}${skipped ? ` (${skipped})` : ''}`;
}
