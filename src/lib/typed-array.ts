/** `to` holding `from`'s values first: a typed array grown into a bigger one of its kind. */
export function grown<T extends Uint8Array | Uint16Array | Int32Array | Uint32Array | Float32Array | Float64Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
