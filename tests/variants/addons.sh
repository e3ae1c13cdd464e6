#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build variant "addons": two add-on layers over the board's root, one a
# directory (optional, on top), one a tarball. Writes the trees under DIR and
# prints the make variables, one per line. usage: addons.sh DIR
set -euo pipefail
dir=$1
rm -rf "$dir"
mkdir -p "$dir/extras/etc/strata-test" "$dir/tools/etc/strata-test" "$dir/tools/usr/bin"
echo extras > "$dir/extras/etc/strata-test/both"
echo extras > "$dir/extras/etc/strata-test/only-extras"
echo tools > "$dir/tools/etc/strata-test/both"
echo tools > "$dir/tools/etc/strata-test/only-tools"
printf '#!/bin/sh\necho hello from the tools layer\n' > "$dir/tools/usr/bin/tools-hello"
chmod 0755 "$dir/tools/usr/bin/tools-hello"
# the base root's os-release, replaced by the top add-on
cp "$(dirname "$0")/../../overlays/rootfs/etc/os-release" "$dir/extras/etc/os-release"
echo 'VARIANT_ID=addons' >> "$dir/extras/etc/os-release"
tar -C "$dir/tools" --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -czf "$dir/tools.tar.gz" .
echo "ADDONS=$dir/extras:optional $dir/tools.tar.gz"
