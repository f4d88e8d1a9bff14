// Which architectures each release is built for. Every release of a minor exists for the
// architectures the profile starts at or before that minor, except a few skipped ones: more
// engineering and feature candidates than z-streams, and never the GA or the newest z-stream.

export function assignArchitectures({ profile, minors }, { chance }) {
  for (const minor of minors.values()) {
    const lastZ = minor.zs.at(-1);
    for (const v of [...minor.pres, ...minor.zs]) {
      for (const a of profile.arches) {
        if (minor.m < a.from) continue;
        let skip = false;
        if (v.pre) skip = v.pre.kind !== 'rc' && chance(a.skipEc, 'skip-pre', a.arch, v.name);
        else if (v.z !== 0 && v !== lastZ) skip = chance(a.skip, 'skip', a.arch, v.name);
        if (!skip) v.arches.push(a.arch);
      }
    }
  }
}
