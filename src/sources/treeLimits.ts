// The limits every graph-data tree is held to, wherever it comes from (a folder, a .tar.gz, an image), so
// that a hostile or broken tree is refused before it costs much memory or time. Real trees are far below
// them: the full-size generated tree (5,975 releases, scripts/generate-graph-data.mjs --size full) is
// 7,707 files and 7 MB in all, its largest file 19 KB; the real tree of 2024 is 1,993 files and 1.3 MB.

/** The bytes of one file of a tree. */
export const MAX_FILE_BYTES = 1024 * 1024;

/** The bytes of all the files of a tree together (a tarball's or an image's: what they unpack to). */
export const MAX_TREE_BYTES = 64 * 1024 * 1024;

/** The files of a tree; for a tarball, its entries (files and folders alike), counted as they arrive. */
export const MAX_TREE_ENTRIES = 100_000;

/**
 * How many times its own length a YAML file may become with every alias written out in full (a rule
 * anchored once and named many times counts each time): no small file grows into a huge value.
 */
export const MAX_YAML_EXPANSION = 4;
