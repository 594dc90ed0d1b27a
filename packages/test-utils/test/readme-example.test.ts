import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeBlock, runReadmeExample, useTempDirs } from '../src/index.js';

const README = `# A package

## Install

\`\`\`sh
npm install something
\`\`\`

## Example

Some words first.

\`\`\`ts
const answer: number = 6 * 7;
console.log(\`answer \${answer}\`);
\`\`\`

\`\`\`ts
console.log('a second block, never run');
\`\`\`
`;

describe('README examples', () => {
  const tempDir = useTempDirs('readme-test');

  function readmeIn(dir: string): string {
    const readme = join(dir, 'README.md');
    writeFileSync(readme, README);
    return readme;
  }

  it('reads the first ts block after the heading', () => {
    const block = readmeBlock(readmeIn(tempDir()), '## Example');
    expect(block).toContain('6 * 7');
    expect(block).not.toContain('second block');
  });

  it('says which heading is missing', () => {
    expect(() => readmeBlock(readmeIn(tempDir()), '## Usage')).toThrow('has no heading "## Usage"');
  });

  it('runs the block in its own process and returns what it printed', () => {
    const dir = tempDir();
    const output = runReadmeExample({ readme: readmeIn(dir), heading: '## Example', besides: dir, cwd: dir });
    expect(output).toBe('answer 42\n');
  }, 60_000);
});
