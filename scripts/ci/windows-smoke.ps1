# scripts/ci/windows-smoke.ps1: on Windows, after install.ps1, runs a list
# of real programs through cordon's shims as an agent would, confined by
# the restricted token, and checks each works, and that what must fail
# does. The platforms workflow (.github/workflows/platforms.yml) runs it,
# as the runner's account and as a standard user; it cannot run on Linux.
$ErrorActionPreference = 'Stop'
$shims = Join-Path $env:LOCALAPPDATA 'cordon\shims'
# In the account's own temporary folder: the standard user's run cannot
# write the runner's.
$ws = Join-Path ([System.IO.Path]::GetTempPath()) ('cordon-smoke-' + [guid]::NewGuid())
New-Item -ItemType Directory -Path $ws | Out-Null
Push-Location -LiteralPath $ws
git init -q
git config user.name ci
git config user.email ci@example.com
# A hook that git runs with Git's own sh.exe (an MSYS2 program).
Set-Content -LiteralPath (Join-Path $ws '.git\hooks\pre-commit') -Value "#!/bin/sh`necho hook-ran > hook.txt`n" -Encoding ascii

$script:fails = 0
function Pass([string]$What) { Write-Host "ok    $What" }
function Fail([string]$What) { Write-Host "FAIL  $What"; $script:fails++ }

# Expect runs a shim with arguments and checks its exit status and that
# its output holds want.
function Expect([string]$What, [int]$Status, [string]$Want, [string]$Shim, [string[]]$Arguments) {
    $out = & (Join-Path $shims $Shim) @Arguments 2>&1 | Out-String
    if ($LASTEXITCODE -eq $Status -and $out.Contains($Want)) {
        Pass $What
    }
    else {
        Fail "$What (status $LASTEXITCODE, want $Status; output: $out)"
    }
}

Expect 'cmd.exe runs, output comes back' 0 'hi' 'cmd.exe' @('/d', '/c', 'echo hi')
Expect 'cmd.exe passes the exit status on' 5 '' 'cmd.exe' @('/d', '/c', 'exit 5')
Expect 'Windows PowerShell starts under the token' 0 'hi' 'powershell.exe' @('-NoProfile', '-Command', 'Write-Output hi')
if (Get-Command pwsh -ErrorAction SilentlyContinue) {
    Expect 'PowerShell 7 starts under the token' 0 'hi' 'pwsh.exe' @('-NoProfile', '-Command', 'Write-Output hi')
}
$gitBash = Join-Path $env:ProgramFiles 'Git\bin\bash.exe'
if (Test-Path -LiteralPath $gitBash) {
    Expect 'Git Bash (MSYS2) starts under the token' 0 'hi' 'cmd.exe' @('/d', '/c', "`"$gitBash`" -c `"echo hi`"")
}
if (Get-Command node -ErrorAction SilentlyContinue) {
    Expect 'node runs' 0 '42' 'cmd.exe' @('/d', '/c', 'node -e "console.log(42)"')
}
Expect 'git commit runs its hook (sh.exe) in the workspace' 0 '' 'cmd.exe' @('/d', '/c', 'git commit -q --allow-empty -m smoke')
if (-not (Test-Path -LiteralPath (Join-Path $ws 'hook.txt'))) {
    Fail 'the pre-commit hook did not run'
}

# What must fail: a write outside the workspace, and to git's
# configuration and hooks (read-only on Windows).
$outside = Join-Path $env:USERPROFILE 'cordon-smoke-outside.txt'
& (Join-Path $shims 'cmd.exe') '/d' '/c' "node -e `"require('fs').writeFileSync(process.argv[1], 'x')`" `"$outside`"" 2>&1 | Out-Null
if (Test-Path -LiteralPath $outside) {
    Fail "a command wrote $outside, outside the workspace"
    Remove-Item -LiteralPath $outside -Force
}
else {
    Pass 'a write outside the workspace fails'
}
$config = Get-Content -LiteralPath (Join-Path $ws '.git\config') -Raw
& (Join-Path $shims 'powershell.exe') '-NoProfile' '-Command' "Add-Content -LiteralPath '.git\config' -Value '[core]'" 2>&1 | Out-Null
if ((Get-Content -LiteralPath (Join-Path $ws '.git\config') -Raw) -ne $config) {
    Fail 'a command changed .git\config'
}
else {
    Pass 'a write to .git\config fails'
}

Pop-Location
Write-Host "$($script:fails) failed"
if ($script:fails -ne 0) {
    throw "$($script:fails) smoke checks failed"
}
