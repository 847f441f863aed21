#!/usr/bin/env bash
# Install (or remove) Dealer Assist on a Linux dealer station (docs/station.md).
#
# Run as root, from the built folder (dist/dealer-assist/, or wherever it was copied):
#   sudo ./install.sh                 install or upgrade: /opt/dealer-assist, the command link, menu
#                                     entry, icons, udev rule, the station service (account
#                                     dealer-assist, systemd unit), its directories, and a
#                                     configuration template /etc/dealer-assist/station.toml
#   sudo ./install.sh --uninstall     remove the program and the unit (the station's configuration,
#                                     store, log and the service account are kept)
# Or from a source tree and its virtual environment (rehearsals, CI; no PyInstaller build):
#   sudo packaging/install.sh --from-venv .venv
#                                     the same install, the program being the tree's packages
#                                     (copied to /opt/dealer-assist/lib) run by that venv's Python;
#                                     the venv and its interpreter must stay where they are and be
#                                     readable by the account dealer-assist
# Options:
#   --prefix DIR     where the program goes (default /opt/dealer-assist)
#   --datadir DIR    where the menu entry, icons and AppStream file go (default /usr/local/share)
#   --bindir DIR     where the `dealer-assist` command link goes (default /usr/local/bin)
#   --no-udev        do not install the shoe's udev rule (/etc/udev/rules.d/99-dealer-shoe.rules)
# DESTDIR=/some/root installs under that root (for packagers and tests): no account is created,
# nothing is chowned, no systemctl, udev reload or cache update is run.
set -euo pipefail

APP_ID=com.dealerassist.DealerAssist
RULE=99-dealer-shoe.rules
UNIT=dealer-assist.service
ACCOUNT=dealer-assist  # the service's system account and group (dealer_assist/service/layout.py)
GROUP=dealer-assist
CONFDIR=/etc/dealer-assist
STATEDIR=/var/lib/dealer-assist
LOGDIR=/var/log/dealer-assist
RUNDIR=/run/dealer-assist
UNITDIR=/etc/systemd/system
PREFIX=/opt/dealer-assist
DATADIR=/usr/local/share
BINDIR=/usr/local/bin
UDEV=1
ACTION=install
FROM_VENV=
DESTDIR=${DESTDIR:-}

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "install.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=${2:?--prefix needs a directory}; shift 2 ;;
    --datadir) DATADIR=${2:?--datadir needs a directory}; shift 2 ;;
    --bindir) BINDIR=${2:?--bindir needs a directory}; shift 2 ;;
    --from-venv) FROM_VENV=${2:?--from-venv needs the virtual environment}; shift 2 ;;
    --no-udev) UDEV=0; shift ;;
    --uninstall) ACTION=uninstall; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for dir in "$PREFIX" "$DATADIR" "$BINDIR"; do
  case "$dir" in
    /?*) ;;
    *) echo "install.sh: $dir: the directories must be absolute paths, not /" >&2; exit 2 ;;
  esac
done
PREFIX=${PREFIX%/}

HERE=$(cd "$(dirname "$0")" && pwd)
ICON_SIZES="16 24 32 48 64 128 256"
if [ -z "$DESTDIR" ] && [ "$(id -u)" != 0 ]; then
  die "run as root (sudo $0), or set DESTDIR"
fi

# systemd is running (sd_booted(3)): only then are units reloaded, enabled and restarted.
systemd_running() { [ -z "$DESTDIR" ] && [ -d /run/systemd/system ]; }

refresh_caches() {
  [ -z "$DESTDIR" ] || return 0
  if command -v update-desktop-database >/dev/null; then update-desktop-database -q "$DATADIR/applications" || true; fi
  if command -v gtk-update-icon-cache >/dev/null; then gtk-update-icon-cache -q -t "$DATADIR/icons/hicolor" || true; fi
}

reload_udev() {
  [ -z "$DESTDIR" ] && [ "$UDEV" = 1 ] && [ -S /run/udev/control ] || return 0
  if command -v udevadm >/dev/null; then
    udevadm control --reload-rules || true
    udevadm trigger --subsystem-match=tty || true
  fi
}

if [ "$ACTION" = uninstall ]; then
  if systemd_running; then
    systemctl disable --now "$UNIT" >/dev/null 2>&1 || true
  fi
  rm -f "$DESTDIR$UNITDIR/$UNIT"
  if systemd_running; then systemctl daemon-reload || true; fi
  rm -f "$DESTDIR$BINDIR/dealer-assist"
  rm -f "$DESTDIR$DATADIR/applications/$APP_ID.desktop" "$DESTDIR$DATADIR/metainfo/$APP_ID.metainfo.xml"
  for size in $ICON_SIZES; do rm -f "$DESTDIR$DATADIR/icons/hicolor/${size}x${size}/apps/$APP_ID.png"; done
  rm -f "$DESTDIR$DATADIR/icons/hicolor/scalable/apps/$APP_ID.svg"
  if [ "$UDEV" = 1 ]; then rm -f "$DESTDIR/etc/udev/rules.d/$RULE"; fi
  # (this script may be /opt/dealer-assist/install.sh itself: bash has it open, so it runs on)
  rm -rf -- "$DESTDIR$PREFIX" "$DESTDIR$PREFIX.new"
  refresh_caches
  reload_udev
  echo "Dealer Assist removed. Kept: the configuration ($CONFDIR), the store ($STATEDIR), the log ($LOGDIR)"
  echo "and the service account $ACCOUNT (remove it with: userdel $ACCOUNT)."
  exit 0
fi

# --from-venv: stage the source tree as a built folder would be (dealer-assist, share/, ...),
# the program being a launcher that runs the venv's Python on PREFIX/lib.
STAGE=
cleanup() { if [ -n "$STAGE" ]; then rm -rf -- "$STAGE"; fi; }
trap cleanup EXIT
if [ -n "$FROM_VENV" ]; then
  SRC=$(cd "$HERE/.." && pwd)
  VENV=$(cd "$FROM_VENV" 2>/dev/null && pwd) || die "--from-venv $FROM_VENV: no such directory"
  PY=$VENV/bin/python
  [ -x "$PY" ] || die "--from-venv $VENV: no bin/python in it (a virtual environment with the project's requirements)"
  [ -f "$SRC/dealer_assist/__init__.py" ] || die "--from-venv: run packaging/install.sh of a source tree ($SRC holds no dealer_assist/)"
  if [ -z "$DESTDIR" ]; then
    # before anything changes: the service's account must run this Python (not under a 0700
    # home); tried as that account if it exists, else as nobody (no more rights than it)
    who=$ACCOUNT; getent passwd "$ACCOUNT" >/dev/null || who=nobody
    runuser -u "$who" -- "$PY" -s -c 'import sqlite3, serial' >/dev/null 2>&1 ||
      die "the account $ACCOUNT could not run $PY (tried as $who): the venv and its interpreter must be readable and reachable by it (a venv under /root or a 0700 home is not); nothing was changed"
  fi
  STAGE=$(mktemp -d "${TMPDIR:-/tmp}/dealer-assist-stage.XXXXXX")
  mkdir "$STAGE/lib"
  for package in dealer_assist hardware ui; do
    cp -a "$SRC/$package" "$STAGE/lib/"
  done
  find "$STAGE/lib" -name __pycache__ -type d -prune -exec rm -rf {} +
  cat > "$STAGE/dealer-assist" <<EOF
#!/bin/sh
# Dealer Assist installed from a source tree by install.sh --from-venv: the packages in
# $PREFIX/lib run by the Python of $VENV.
PYTHONPATH=$PREFIX/lib\${PYTHONPATH:+:\$PYTHONPATH}
export PYTHONPATH
exec "$PY" -s -P -m dealer_assist "\$@"
EOF
  chmod 0755 "$STAGE/dealer-assist"
  PYTHONPATH=$SRC "$PY" -s "$SRC/packaging/assemble.py" "$STAGE" >/dev/null || die "--from-venv: assembling $STAGE failed"
  HERE=$STAGE
  PROGRAM_PARTS=(dealer-assist lib share install.sh CHANGELOG.md)
else
  if [ ! -x "$HERE/dealer-assist" ] || [ ! -d "$HERE/_internal" ]; then
    die "run me from the built folder (it holds dealer-assist and _internal/), or give --from-venv VENV"
  fi
  PROGRAM_PARTS=(dealer-assist _internal share install.sh CHANGELOG.md)
fi

# Before anything changes: the paths are directories (or absent) and there is room.
preflight() {
  [ -z "$DESTDIR" ] || return 0
  local path parent need have
  for path in "$STATEDIR" "$LOGDIR" "$CONFDIR" "$PREFIX" "$BINDIR" "$DATADIR"; do
    if [ -L "$path" ] || { [ -e "$path" ] && [ ! -d "$path" ]; }; then
      die "$path exists and is not a directory (a link or a file): move it away first; nothing was changed"
    fi
  done
  need=$(( $(du -sk "${PROGRAM_PARTS[@]/#/$HERE/}" 2>/dev/null | awk '{s += $1} END {print s + 0}') * 2 + 10240 ))
  for path in "$PREFIX" "$STATEDIR"; do
    parent=$path
    while [ ! -d "$parent" ]; do parent=$(dirname "$parent"); done
    have=$(df -Pk "$parent" | awk 'NR == 2 {print $4}')
    [ "$path" = "$STATEDIR" ] && need=102400  # the store's first days and its journal
    if [ -n "$have" ] && [ "$have" -lt "$need" ]; then
      die "$parent has $((have / 1024)) MB free, $((need / 1024)) MB needed for $path: free some space; nothing was changed"
    fi
  done
}
preflight

# The service account: a system account with no log-in, its home the state directory, in
# dialout for the shoe. Dealers' accounts join group dealer-assist only to reach the socket.
if [ -z "$DESTDIR" ]; then
  getent group "$GROUP" >/dev/null || groupadd --system "$GROUP"
  if ! getent passwd "$ACCOUNT" >/dev/null; then
    nologin=$(command -v nologin || echo /usr/sbin/nologin)
    useradd --system --gid "$GROUP" --home-dir "$STATEDIR" --no-create-home --shell "$nologin" \
      --comment "Dealer Assist station service" "$ACCOUNT"
  fi
  if getent group dialout >/dev/null; then usermod -a -G dialout "$ACCOUNT"; fi
fi

# The program: a fresh copy, so files of an older version do not linger.
if [ "$HERE" != "$DESTDIR$PREFIX" ]; then
  rm -rf -- "$DESTDIR$PREFIX.new"
  mkdir -p "$DESTDIR$PREFIX.new"
  for part in "${PROGRAM_PARTS[@]}"; do cp -a "$HERE/$part" "$DESTDIR$PREFIX.new/"; done
  if [ -z "$DESTDIR" ]; then chown -R root:root "$DESTDIR$PREFIX.new"; fi
  chmod -R go-w,a+rX "$DESTDIR$PREFIX.new"
  rm -rf -- "$DESTDIR$PREFIX"
  mv "$DESTDIR$PREFIX.new" "$DESTDIR$PREFIX"
fi
install -d "$DESTDIR$BINDIR"
ln -sfn "$PREFIX/dealer-assist" "$DESTDIR$BINDIR/dealer-assist"
if [ -n "$FROM_VENV" ] && [ -z "$DESTDIR" ]; then
  # The service runs the venv's Python: its account must reach it (not under a 0700 home).
  runuser -u "$ACCOUNT" -- "$PREFIX/dealer-assist" --version >/dev/null 2>&1 ||
    die "the account $ACCOUNT cannot run $PREFIX/dealer-assist ($PY and its interpreter must be readable by it; a venv under /root or a 0700 home is not)"
fi

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

# The station's directories (STATION-CONTRACT "Accounts, files, modes"). Secrets are the
# service account's alone: the state directory 0700, its files 0600 — group dealer-assist
# gives a dealer the socket, nothing else. An install of the old layout (directory 2770,
# files 0660 of group dealer-assist, a key made by whichever dealer came first) is migrated.
if [ -z "$DESTDIR" ]; then
  svc=(-o "$ACCOUNT" -g "$GROUP"); root=(-o root -g root)
else
  svc=(); root=()
fi
migrated=; fixed=0
if [ -z "$DESTDIR" ] && [ -d "$STATEDIR" ]; then
  # the old shared layout is the setgid directory; otherwise say how many files were set right
  if [ -g "$STATEDIR" ]; then migrated=1; fi
  fixed=$(find "$STATEDIR" -xdev -mindepth 1 ! -type l \( ! -user "$ACCOUNT" -o ! -group "$GROUP" -o -perm /0077 \) -print | wc -l)
fi
install -d -m 0700 "${svc[@]}" "$DESTDIR$STATEDIR"
install -d -m 0750 "${svc[@]}" "$DESTDIR$LOGDIR"
install -d -m 0755 "${root[@]}" "$DESTDIR$CONFDIR"
chmod g-s "$DESTDIR$STATEDIR" "$DESTDIR$LOGDIR" "$DESTDIR$CONFDIR"  # the old layout's setgid
if [ -z "$DESTDIR" ]; then
  # -xdev, no links followed: only the station's own files change hands
  find "$STATEDIR" "$LOGDIR" -xdev -mindepth 1 ! -type l -exec chown -h "$ACCOUNT:$GROUP" {} +
  find "$STATEDIR" -xdev -mindepth 1 -type d -exec chmod 0700 {} +
  find "$STATEDIR" -xdev -mindepth 1 -type f -exec chmod 0600 {} +
  find "$LOGDIR" -xdev -mindepth 1 -type f -exec chmod 0640 {} +
fi
if [ ! -e "$DESTDIR$CONFDIR/station.toml" ]; then
  install -m 0644 "${root[@]}" "$HERE/share/dealer-assist/station.toml" "$DESTDIR$CONFDIR/station.toml"
  config_note="wrote the template $CONFDIR/station.toml"
else
  # root's alone (the old layout let group dealer-assist write it)
  if [ -z "$DESTDIR" ]; then chown root:root "$CONFDIR/station.toml"; fi
  chmod 0644 "$DESTDIR$CONFDIR/station.toml"
  config_note="kept $CONFDIR/station.toml"
fi
if [ -z "$DESTDIR" ] && ! systemd_running; then
  # systemd makes it at each start (RuntimeDirectory=); without systemd, here
  install -d -m 0750 "${svc[@]}" "$RUNDIR"
fi

# The station service's unit, ExecStart naming the installed command.
install -d "$DESTDIR$UNITDIR"
sed -e "s|^ExecStart=/usr/local/bin/dealer-assist |ExecStart=$BINDIR/dealer-assist |" \
  "$HERE/share/dealer-assist/systemd/$UNIT" > "$DESTDIR$UNITDIR/$UNIT"
chmod 0644 "$DESTDIR$UNITDIR/$UNIT"
service_note="systemd is not running: start the service as its account yourself (docs/station.md)"
if systemd_running; then
  systemctl daemon-reload
  systemctl enable "$UNIT" >/dev/null 2>&1 || die "systemctl enable $UNIT failed"
  if systemctl is-active --quiet "$UNIT"; then
    systemctl restart "$UNIT"
    service_note="the service was running: restarted on the new version"
  else
    service_note="the service is enabled; start it after station init: systemctl start $UNIT"
  fi
fi
refresh_caches
reload_udev

echo "Dealer Assist $("$DESTDIR$PREFIX/dealer-assist" --version 2>/dev/null | sed 's/^dealer-assist //') installed in $PREFIX."
echo "Station: $config_note; store in $STATEDIR, log in $LOGDIR (account $ACCOUNT)."
if [ -n "$migrated" ]; then
  echo "Migrated $STATEDIR from the shared layout: its files now belong to $ACCOUNT alone (0700/0600)."
elif [ "$fixed" -gt 0 ]; then
  echo "Set $fixed file(s) in $STATEDIR to $ACCOUNT alone (0700/0600)."
fi
echo "Service: $service_note."
echo "Next: dealer-assist station init (as root); add each dealer's account: usermod -aG $GROUP <account>;"
echo "then check the station: dealer-assist station check"
