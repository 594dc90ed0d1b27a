// The money helpers move here from @finsync/provider; see packages/internals/README.md.
export {};
