/** A random (version 4, RFC 4122) UUID, lowercase hex in 8-4-4-4-12 groups. */
export function v4(): string;
