# install.ps1: install cordon for the current user on Windows, with shims
# named cmd.exe, powershell.exe and pwsh.exe, and print how to point agents
# and IDE terminals at them. No administrator rights: everything goes under
# %LOCALAPPDATA%\cordon.
#
#   From a release (checked against the release's checksums.txt):
#     irm https://github.com/cordonsh/cordon/releases/latest/download/install.ps1 | iex
#     $env:CORDON_VERSION = '0.3.0'; irm .../install.ps1 | iex
#     $env:CORDON_DOWNLOAD_URL = 'https://mirror/cordon'  (a mirror of a release's files)
#   From a checkout of the source, with Go installed (Windows' default
#   execution policy refuses scripts run by path; -ExecutionPolicy Bypass
#   allows this one, for this run):
#     powershell -ExecutionPolicy Bypass -File .\install.ps1
#   Remove exactly what it installed:
#     powershell -ExecutionPolicy Bypass -File .\install.ps1 -Uninstall
#     & ([scriptblock]::Create((irm .../install.ps1))) -Uninstall

param(
    [switch]$Uninstall,
    [string]$Version = $env:CORDON_VERSION,
    [string]$Source = ''
)

# Everything below runs in a script block of its own: piped to iex, the
# script runs in the caller's session, which must keep its own settings,
# variables and functions (only the three parameters above are set
# there, as iex sets a script's parameters).
& {
$Repo = 'cordonsh/cordon'
$Root = Join-Path $env:LOCALAPPDATA 'cordon'
$Bin = Join-Path $Root 'bin'
$Shims = Join-Path $Root 'shims'
$Manifest = Join-Path $Root 'installed.txt'
$ShimNames = @('cmd.exe', 'powershell.exe', 'pwsh.exe')

# Fail stops the install with what to do. It throws rather than exits:
# exit would close the PowerShell window that piped the script to iex.
function Fail([string]$Message) {
    throw "install.ps1: $Message"
}

# Remove-Installed deletes the files the manifest lists, then the folders
# it made if they are empty, then the manifest: nothing else.
function Remove-Installed {
    if (-not (Test-Path -LiteralPath $Manifest)) {
        Write-Host "cordon is not installed here (no $Manifest): nothing removed"
        return
    }
    $entries = @(Get-Content -LiteralPath $Manifest -Encoding UTF8)
    foreach ($path in $entries) {
        if ($path.StartsWith('file ')) {
            $file = $path.Substring(5)
            if (Test-Path -LiteralPath $file -PathType Leaf) {
                # Moved aside first: a shim an agent still runs cannot be
                # deleted, only renamed.
                Move-Aside $file
                Write-Host "removed $file"
            }
        }
        if ($path.StartsWith('path ')) {
            Remove-UserPath $path.Substring(5)
        }
    }
    Remove-Aside
    Remove-Item -LiteralPath $Manifest -Force
    [array]::Reverse($entries)
    foreach ($path in $entries) {
        if ($path.StartsWith('dir ')) {
            $dir = $path.Substring(4)
            if ((Test-Path -LiteralPath $dir -PathType Container) -and -not (Get-ChildItem -LiteralPath $dir -Force)) {
                Remove-Item -LiteralPath $dir -Force
                Write-Host "removed $dir"
            }
        }
    }
}

# New-Folder makes a folder and records it when it did not exist.
function New-Folder([string]$Dir, [System.Collections.Generic.List[string]]$Made) {
    if (-not (Test-Path -LiteralPath $Dir)) {
        New-Item -ItemType Directory -Path $Dir | Out-Null
        $Made.Add("dir $Dir")
    }
}

# Get-Arch is the release's name for this machine's processor: the
# machine's, not this PowerShell's (a 32-bit PowerShell on a 64-bit
# Windows sees x86 in PROCESSOR_ARCHITECTURE, the machine's in
# PROCESSOR_ARCHITEW6432).
function Get-Arch {
    $arch = $env:PROCESSOR_ARCHITEW6432
    if (-not $arch) {
        $arch = $env:PROCESSOR_ARCHITECTURE
    }
    switch ($arch) {
        'AMD64' { return 'amd64' }
        'ARM64' { return 'arm64' }
        default { Fail "no cordon release for the processor $arch" }
    }
}

# Get-Release downloads the release archive and checksums.txt, checks the
# archive's SHA-256 against it, and unpacks cordon.exe to $Target. The
# archives' names carry no version (as for install.sh): the latest
# release's are under releases/latest/download, a pinned one's under
# releases/download/vVERSION, a mirror's under $env:CORDON_DOWNLOAD_URL.
function Get-Release([string]$Target) {
    $arch = Get-Arch
    $archive = "cordon_windows_${arch}.zip"
    if ($env:CORDON_DOWNLOAD_URL) {
        $base = $env:CORDON_DOWNLOAD_URL.TrimEnd('/')
    }
    elseif ($Version) {
        $base = "https://github.com/$Repo/releases/download/v$($Version.TrimStart('v'))"
    }
    else {
        $base = "https://github.com/$Repo/releases/latest/download"
    }
    # Windows PowerShell 5.1 draws a progress bar per chunk (downloads many
    # times slower), and its .NET may not offer TLS 1.2 unless asked.
    $ProgressPreference = 'SilentlyContinue'
    [System.Net.ServicePointManager]::SecurityProtocol = [System.Net.ServicePointManager]::SecurityProtocol -bor [System.Net.SecurityProtocolType]::Tls12
    $tmp = Join-Path ([System.IO.Path]::GetTempPath()) ("cordon-install-" + [guid]::NewGuid())
    New-Item -ItemType Directory -Path $tmp | Out-Null
    try {
        Invoke-WebRequest -UseBasicParsing -Uri "$base/$archive" -OutFile (Join-Path $tmp $archive)
        Invoke-WebRequest -UseBasicParsing -Uri "$base/checksums.txt" -OutFile (Join-Path $tmp 'checksums.txt')
        $want = $null
        foreach ($line in Get-Content -LiteralPath (Join-Path $tmp 'checksums.txt')) {
            $fields = $line -split '\s+'
            if ($fields.Count -ge 2 -and $fields[1].TrimStart('*') -eq $archive) {
                $want = $fields[0].ToLowerInvariant()
            }
        }
        if (-not $want) {
            Fail "checksums.txt at $base has no line for ${archive}: nothing installed"
        }
        $got = (Get-FileHash -Algorithm SHA256 -LiteralPath (Join-Path $tmp $archive)).Hash.ToLowerInvariant()
        if ($got -ne $want) {
            Fail "$archive does not match checksums.txt (sha256 $got, want $want): nothing installed"
        }
        Expand-Archive -LiteralPath (Join-Path $tmp $archive) -DestinationPath (Join-Path $tmp 'x')
        $exe = Get-ChildItem -LiteralPath (Join-Path $tmp 'x') -Recurse -Filter 'cordon.exe' | Select-Object -First 1
        if (-not $exe) {
            Fail "${archive} holds no cordon.exe: nothing installed"
        }
        Copy-Item -LiteralPath $exe.FullName -Destination $Target -Force
    }
    finally {
        Remove-Item -LiteralPath $tmp -Recurse -Force -ErrorAction SilentlyContinue
    }
}

# Build-Checkout builds cordon.exe from a source checkout with Go.
function Build-Checkout([string]$Dir, [string]$Target) {
    if (-not (Get-Command go -ErrorAction SilentlyContinue)) {
        Fail 'go not found: install Go 1.26 or later (https://go.dev/dl/), or run this from a release instead'
    }
    Push-Location -LiteralPath $Dir
    $cgo = $env:CGO_ENABLED
    try {
        $env:CGO_ENABLED = '0'
        & go build -trimpath -o $Target .
        if ($LASTEXITCODE -ne 0) {
            Fail "go build failed in $Dir"
        }
    }
    finally {
        $env:CGO_ENABLED = $cgo
        Pop-Location
    }
}

# Move-Aside renames Path, when it is there, out of the way into $Bin:
# Windows lets a running program's file be renamed, not replaced or
# deleted, and cordon.exe and its shims run as long as an agent does.
function Move-Aside([string]$Path) {
    if (Test-Path -LiteralPath $Path) {
        Move-Item -LiteralPath $Path -Destination (Join-Path $Bin ('old-' + [guid]::NewGuid() + '.exe')) -Force
    }
}

# Remove-Aside deletes what earlier installs moved aside and nothing runs
# any more; one still running stays until a later install.
function Remove-Aside {
    if (Test-Path -LiteralPath $Bin) {
        Get-ChildItem -LiteralPath $Bin -Filter 'old-*.exe' | ForEach-Object {
            Remove-Item -LiteralPath $_.FullName -Force -ErrorAction SilentlyContinue
        }
    }
}

# Get-UserPath is the user's Path as the registry holds it (%VARIABLES%
# not expanded), a folder each.
function Get-UserPath {
    return @(((Get-Item -LiteralPath 'HKCU:\Environment').GetValue('Path', '', 'DoNotExpandEnvironmentNames') -split ';') | Where-Object { $_ })
}

# Set-UserPath writes Parts as the user's Path, kept unexpanded, and
# tells running programs (Explorer among them) that the environment
# changed, as setting any user variable does.
function Set-UserPath([string[]]$Parts) {
    # (Empty entries left out: a function's empty result is $null.)
    New-ItemProperty -LiteralPath 'HKCU:\Environment' -Name 'Path' -Value (@($Parts | Where-Object { $_ }) -join ';') -PropertyType ExpandString -Force | Out-Null
    [System.Environment]::SetEnvironmentVariable('CORDON_INSTALL_PATH', $null, 'User')
}

# Add-UserPath adds Dir to the end of the user's Path, records it, and
# adds it to this session's; windows opened later have it.
function Add-UserPath([string]$Dir, [System.Collections.Generic.List[string]]$Made) {
    $parts = Get-UserPath
    if ($parts -notcontains $Dir) {
        Set-UserPath (@($parts) + $Dir)
        $Made.Add("path $Dir")
    }
    if (@($env:Path -split ';') -notcontains $Dir) {
        $env:Path = $env:Path.TrimEnd(';') + ';' + $Dir
    }
}

# Remove-UserPath takes Dir out of the user's Path.
function Remove-UserPath([string]$Dir) {
    $parts = Get-UserPath
    if ($parts -contains $Dir) {
        Set-UserPath @($parts | Where-Object { $_ -ne $Dir })
        Write-Host "removed $Dir from the user's Path"
    }
}

function Install-Cordon {
    $ErrorActionPreference = 'Stop'
    if ($Uninstall) {
        Remove-Installed
        return
    }
    if (-not $env:LOCALAPPDATA) {
        Fail 'LOCALAPPDATA is not set: run this as the Windows user who runs the agents'
    }

    $made = [System.Collections.Generic.List[string]]::new()
    if (Test-Path -LiteralPath $Manifest) {
        # A second install keeps the first one's record of what to remove.
        foreach ($line in Get-Content -LiteralPath $Manifest -Encoding UTF8) { $made.Add($line) }
    }
    New-Folder $Root $made
    New-Folder $Bin $made
    New-Folder $Shims $made

    $cordon = Join-Path $Bin 'cordon.exe'
    # Built or downloaded next to the target, then moved: a cordon.exe in
    # use as an agent's shell cannot be overwritten in place.
    $next = Join-Path $Bin 'cordon.new.exe'
    if (-not $Source -and $PSScriptRoot -and (Test-Path -LiteralPath (Join-Path $PSScriptRoot 'go.mod'))) {
        $Source = $PSScriptRoot
    }
    if ($Source) {
        Build-Checkout $Source $next
    }
    else {
        Get-Release $next
    }
    Remove-Aside
    Move-Aside $cordon
    Move-Item -LiteralPath $next -Destination $cordon -Force
    $made.Add("file $cordon")

    foreach ($name in $ShimNames) {
        $shim = Join-Path $Shims $name
        Move-Aside $shim
        # A hard link when the volume allows one (no developer mode needed,
        # unlike a symbolic link), else a copy.
        try {
            New-Item -ItemType HardLink -Path $shim -Target $cordon | Out-Null
        }
        catch {
            Copy-Item -LiteralPath $cordon -Destination $shim
        }
        $made.Add("file $shim")
    }
    Add-UserPath $Bin $made
    $made | Select-Object -Unique | Set-Content -LiteralPath $Manifest -Encoding UTF8

    Write-Host @"
cordon is installed:
  $cordon  (on your Path: windows opened from now on find cordon)
  $Shims\{cmd,powershell,pwsh}.exe  (the same program)

Point an agent at the shims. Every command it runs through cmd.exe or
PowerShell is then judged; allowed ones run in the real shell, confined
(a restricted token and a job object, see docs/windows.md); refused ones
exit 126 with the reason on stderr. In the PowerShell window that starts
the agent:
  any agent:    `$env:ComSpec = '$Shims\cmd.exe'; `$env:Path = '$Shims;' + `$env:Path
                (Node and Python run cmd.exe from ComSpec, the rest by name from Path)
  VS Code, Cursor: a terminal profile in settings.json, made the default:
                "terminal.integrated.profiles.windows": {
                  "cordon": { "path": "$($Shims -replace '\\', '\\')\\powershell.exe", "args": ["-NoProfile"] } },
                "terminal.integrated.defaultProfile.windows": "cordon"
  Windows Terminal: a profile whose command line is $Shims\powershell.exe -NoProfile

Judge a command without running it: cordon check -- cmd /c "rd /s /q build"
See how commands are confined here:  cordon sandbox
Remove it:                           powershell -ExecutionPolicy Bypass -File .\install.ps1 -Uninstall
"@
}

Install-Cordon
}
