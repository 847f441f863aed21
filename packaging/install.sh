#!/usr/bin/env bash
# Install (or remove) the built Dealer Assist on a Linux dealer station.
#
# Run from the built folder (dist/dealer-assist/, or wherever it was copied), as root:
#   sudo ./install.sh                 install to /opt/dealer-assist, menu entry, icons, udev rule,
#                                     the station: group dealer-assist, /var/lib/dealer-assist (store),
#                                     /var/log/dealer-assist, /etc/dealer-assist/station.toml (template)
#   sudo ./install.sh --uninstall     remove the program again (the station's store, log and
#                                     configuration are kept)
# Options:
#   --prefix DIR     where the program goes (default /opt/dealer-assist)
#   --datadir DIR    where the menu entry, icons and AppStream file go (default /usr/local/share)
#   --bindir DIR     where the `dealer-assist` command link goes (default /usr/local/bin)
#   --no-udev        do not install the shoe's udev rule (/etc/udev/rules.d/99-dealer-shoe.rules)
# DESTDIR=/some/root installs under that root (for packagers and tests); then no udev
# reload and no cache updates are run.
set -euo pipefail

APP_ID=com.dealerassist.DealerAssist
RULE=99-dealer-shoe.rules
GROUP=dealer-assist  # every dealer account of the station; dealer_assist/service/station.py GROUP
CONFDIR=/etc/dealer-assist
STATEDIR=/var/lib/dealer-assist
LOGDIR=/var/log/dealer-assist
PREFIX=/opt/dealer-assist
DATADIR=/usr/local/share
BINDIR=/usr/local/bin
UDEV=1
ACTION=install
DESTDIR=${DESTDIR:-}

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=${2:?--prefix needs a directory}; shift 2 ;;
    --datadir) DATADIR=${2:?--datadir needs a directory}; shift 2 ;;
    --bindir) BINDIR=${2:?--bindir needs a directory}; shift 2 ;;
    --no-udev) UDEV=0; shift ;;
    --uninstall) ACTION=uninstall; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
ICON_SIZES="16 24 32 48 64 128 256"

refresh_caches() {
  [ -z "$DESTDIR" ] || return 0
  command -v update-desktop-database >/dev/null && update-desktop-database -q "$DATADIR/applications" || true
  command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$DATADIR/icons/hicolor" || true
}

reload_udev() {
  [ -z "$DESTDIR" ] && [ "$UDEV" = 1 ] || return 0
  if command -v udevadm >/dev/null; then
    udevadm control --reload-rules || true
    udevadm trigger --subsystem-match=tty || true
  fi
}

if [ "$ACTION" = uninstall ]; then
  rm -f "$DESTDIR$BINDIR/dealer-assist"
  rm -f "$DESTDIR$DATADIR/applications/$APP_ID.desktop" "$DESTDIR$DATADIR/metainfo/$APP_ID.metainfo.xml"
  for size in $ICON_SIZES; do rm -f "$DESTDIR$DATADIR/icons/hicolor/${size}x${size}/apps/$APP_ID.png"; done
  rm -f "$DESTDIR$DATADIR/icons/hicolor/scalable/apps/$APP_ID.svg"
  [ "$UDEV" = 0 ] || rm -f "$DESTDIR/etc/udev/rules.d/$RULE"
  rm -rf "${DESTDIR:?}$PREFIX"
  refresh_caches
  reload_udev
  echo "Dealer Assist removed. The station's store ($STATEDIR), log ($LOGDIR) and configuration ($CONFDIR) were kept."
  exit 0
fi

if [ ! -x "$HERE/dealer-assist" ] || [ ! -d "$HERE/_internal" ]; then
  echo "install.sh: run me from the built folder (it holds dealer-assist and _internal/)" >&2
  exit 1
fi
if [ -z "$DESTDIR" ] && [ "$(id -u)" != 0 ]; then
  echo "install.sh: run as root (sudo ./install.sh), or set DESTDIR" >&2
  exit 1
fi

# The program: a fresh copy, so files of an older version do not linger.
if [ "$HERE" != "$DESTDIR$PREFIX" ]; then
  rm -rf "${DESTDIR:?}$PREFIX.new"
  mkdir -p "$DESTDIR$PREFIX.new"
  cp -a "$HERE/dealer-assist" "$HERE/_internal" "$HERE/share" "$HERE/install.sh" "$HERE/CHANGELOG.md" "$DESTDIR$PREFIX.new/"
  rm -rf "${DESTDIR:?}$PREFIX"
  mv "$DESTDIR$PREFIX.new" "$DESTDIR$PREFIX"
fi
install -d "$DESTDIR$BINDIR"
ln -sfn "$PREFIX/dealer-assist" "$DESTDIR$BINDIR/dealer-assist"

# Menu entry (Exec/TryExec point at the installed program), AppStream file, icons.
install -d "$DESTDIR$DATADIR/applications" "$DESTDIR$DATADIR/metainfo"
sed -e "s|^Exec=dealer-assist|Exec=$PREFIX/dealer-assist|" -e "s|^TryExec=dealer-assist|TryExec=$PREFIX/dealer-assist|" \
  "$HERE/share/applications/$APP_ID.desktop" > "$DESTDIR$DATADIR/applications/$APP_ID.desktop"
chmod 0644 "$DESTDIR$DATADIR/applications/$APP_ID.desktop"
install -m 0644 "$HERE/share/metainfo/$APP_ID.metainfo.xml" "$DESTDIR$DATADIR/metainfo/"
for size in $ICON_SIZES; do
  install -D -m 0644 "$HERE/share/icons/hicolor/${size}x${size}/apps/$APP_ID.png" \
    "$DESTDIR$DATADIR/icons/hicolor/${size}x${size}/apps/$APP_ID.png"
done
install -D -m 0644 "$HERE/share/icons/hicolor/scalable/apps/$APP_ID.svg" \
  "$DESTDIR$DATADIR/icons/hicolor/scalable/apps/$APP_ID.svg"

# The shoe: stable /dev/dealer-shoe, group dialout (docs/shoe.md).
if [ "$UDEV" = 1 ]; then
  install -D -m 0644 "$HERE/share/dealer-assist/udev/$RULE" "$DESTDIR/etc/udev/rules.d/$RULE"
fi
# The station (docs/station.md): one store shared by every dealer account of the group
# dealer-assist. Directories only the group may enter (2770: setgid, so files made inside
# belong to the group; the app creates its files 0660); the configuration directory is
# readable by all and writable by the group, so the Station setup dialog can replace the
# file atomically. An existing configuration is never overwritten.
if [ -z "$DESTDIR" ] && ! getent group "$GROUP" >/dev/null; then
  groupadd --system "$GROUP"
fi
owner=()
if getent group "$GROUP" >/dev/null; then owner=(-o root -g "$GROUP"); fi
install -d -m 2770 "${owner[@]}" "$DESTDIR$STATEDIR" "$DESTDIR$LOGDIR"
install -d -m 2775 "${owner[@]}" "$DESTDIR$CONFDIR"
if [ ! -e "$DESTDIR$CONFDIR/station.toml" ]; then
  install -m 0664 "${owner[@]}" "$HERE/share/dealer-assist/station.toml" "$DESTDIR$CONFDIR/station.toml"
  config_note="wrote the template $CONFDIR/station.toml: set the table and the shoe there (docs/station.md)"
else
  config_note="kept $CONFDIR/station.toml"
fi
refresh_caches
reload_udev

echo "Dealer Assist $("$DESTDIR$PREFIX/dealer-assist" --version 2>/dev/null | sed 's/^dealer-assist //') installed in $PREFIX."
echo "Station: $config_note; store in $STATEDIR, log in $LOGDIR."
echo "Add each dealer's account to the station's groups: sudo usermod -aG $GROUP,dialout <account>"
echo "Then check the station: dealer-assist station check"
