// Regenerates canonical_vectors.json: node gen_canonical_vectors.js > canonical_vectors.json
// canon is the reference: JSON.stringify for scalars, keys sorted by UTF-16 code units.
function canon(v){ if (Array.isArray(v)) return '['+v.map(canon).join(',')+']';
  if (v && typeof v==='object') return '{'+Object.keys(v).sort().map(k=>JSON.stringify(k)+':'+canon(v[k])).join(',')+'}';
  return JSON.stringify(v); }
const inputs = [
  '{"b":1,"a":2}', ' { "a" : [ 3 , 2 , 1 ] , "b" : { "d" : null , "c" : true } } ',
  '{"10":1,"2":2,"b":3,"B":4,"":5}', '{"a":1,"a":2}', '{"b":1,"a":2,"b":{"y":1,"x":2},"a":[3]}', '{"é":1,"z":2,"😀":3,"\uffff":4}',
  '[1.0, -0, 0.0, 1e21, 1e20, 123456789012345678901, 1e-6, 1e-7, 0.1, 1.5e300, -2.5E-10, 1E400, -1e400, 5e-324, 1e-400, 100, 12.34e1]',
  '"\\u0041\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\u007f\\u2028"', '"\\ud83d\\ude00 \\ud800 \\udc00x \\uD83D"', '"한국어 text"',
  'true', 'false', 'null', '0', '-0', '"\\""', '[]', '{}', '[[],{},[{}]]', '{"a":{"b":{"c":[1,{"e":2,"d":1}]}}}',
  '\t\n\r 42 \n', '0.30000000000000004', '9007199254740993', '1.7976931348623157e308', '4.9e-324', '[1e21,1e-7,123e-20]',
];
const out = inputs.map(i => ({ input: i, canonical: canon(JSON.parse(i)) }));
for (const bad of ['', '{', '{"a":1,}', '[1,]', '01', '1.', '.5', '+1', 'NaN', '"\\x"', '"\u0001"', "{'a':1}", 'tru', '[1] x', '\ufeff{}', 'a=1&b=2', '{"a" 1}', '-', '1e', '"abc'])
  { let ok = true; try { JSON.parse(bad) } catch { ok = false } if (ok) throw new Error('valid: '+bad); out.push({ input: bad, canonical: null }); }
console.log(JSON.stringify(out, null, 1));
