# scripts/ci/windows-as-user.ps1: runs install.ps1 and the smoke list as a
# standard local user made for the run (hosted runners run jobs as an
# administrator, whose restricted token keeps more than a person's).
$ErrorActionPreference = 'Stop'
$name = 'cordonci'
$secure = ConvertTo-SecureString ('Cc1-' + [guid]::NewGuid()) -AsPlainText -Force
New-LocalUser -Name $name -Password $secure -PasswordNeverExpires | Out-Null
$cred = [System.Management.Automation.PSCredential]::new($name, $secure)
$repo = (Get-Location).Path
$go = Split-Path -Parent (Get-Command go).Source
# A folder both accounts use: the user's output, read back here.
$shared = Join-Path $env:SystemDrive 'cordon-ci'
New-Item -ItemType Directory -Force -Path $shared | Out-Null
icacls $shared /grant "${name}:(OI)(CI)F" | Out-Null
icacls $repo /grant "${name}:(OI)(CI)RX" /T /Q | Out-Null
$log = Join-Path $shared 'as-user.log'
$inner = "`$env:Path = '$go;' + `$env:Path; Set-Location -LiteralPath '$repo'; & ./install.ps1 -Source '$repo' *> '$log'; & ./scripts/ci/windows-smoke.ps1 *>> '$log'; exit `$LASTEXITCODE"
$p = Start-Process -FilePath 'pwsh' -ArgumentList @('-NoProfile', '-ExecutionPolicy', 'Bypass', '-Command', $inner) -Credential $cred -LoadUserProfile -Wait -PassThru -WorkingDirectory $shared
if (Test-Path -LiteralPath $log) {
    Get-Content -LiteralPath $log
}
if ($p.ExitCode -ne 0) {
    throw "install.ps1 and the smoke list as a standard user failed: $($p.ExitCode)"
}
