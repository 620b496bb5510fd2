export function vendorAlasql(root: string, dist: string): void;
