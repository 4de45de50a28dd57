// The built-in CPU trainer implementing evo.job/v1 lands with issue 4; this package is its home.
export {};
