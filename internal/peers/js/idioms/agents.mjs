export const idioms = [];
