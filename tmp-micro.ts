import { compile, configFrom, checkedModel, successorsFunction } from './spec/index.ts';
import { check } from './checker/index.ts';
const m = compile(configFrom({ pages: 8, prefillLimit: 3, requests: [1,2,2,3,3,4,5].map((length) => ({ length })), variant: 'length-fix' }));
console.log('size', m.size);
const model = checkedModel(m);
const states: Uint8Array[] = [];
const inner = model.successors!;
const counted = { ...model, successors: (s: Uint8Array, sink: any) => { if (states.length < 300000 && Math.random() < 0.2) states.push(s.slice()); inner(s, sink); } };
let t0 = performance.now();
const r = check(counted, { symmetry: false, maxStates: 1500000 });
console.log('check', r.distinctStates, (performance.now() - t0).toFixed(0), 'ms', states.length);
const succ = successorsFunction(m);
let n = 0;
const sink = () => { n++; };
for (let rep = 0; rep < 3; rep++) {
  t0 = performance.now();
  for (const s of states) succ(s, sink);
  const dt = performance.now() - t0;
  console.log('expand ns/state', (dt * 1e6 / states.length).toFixed(0), 'succ/state', (n / states.length / (rep + 1)).toFixed(2));
}
for (const p of model.properties) {
  if (p.kind !== 'always') continue;
  t0 = performance.now();
  let c = 0;
  for (let rep = 0; rep < 3; rep++) for (const s of states) if (p.holds(s)) c++;
  console.log(p.name.padEnd(16), 'ns/state', ((performance.now() - t0) * 1e6 / states.length / 3).toFixed(1));
}
import { expandersOf, allActions } from './spec/index.ts';
import { ScratchState } from './checker/index.ts';
{
  const ex = expandersOf(m, allActions(m));
  const scratch = new ScratchState(m.size);
  const kinds = [...new Set(allActions(m).map((a) => a.kind))];
  for (let k = 0; k < ex.length; k++) {
    let c = 0;
    const sk = () => { c++; };
    for (const s of states) { scratch.set(s); ex[k]!(scratch, sk); }
    t0 = performance.now();
    for (let rep = 0; rep < 3; rep++) for (const s of states) { scratch.set(s); ex[k]!(scratch, sk); }
    console.log(kinds[k]!.padEnd(10), 'ns/state', ((performance.now() - t0) * 1e6 / states.length / 3).toFixed(1), 'succ', (c / states.length / 4).toFixed(2));
  }
  t0 = performance.now();
  for (let rep = 0; rep < 3; rep++) for (const s of states) { scratch.set(s); }
  console.log('set only', ((performance.now() - t0) * 1e6 / states.length / 3).toFixed(1));
}
