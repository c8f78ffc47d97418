(function(){
'use strict';
var root=document.documentElement;
var chunks=null,lower=null,waiting=[];
var blocks=Array.prototype.slice.call(document.querySelectorAll('details[data-chunk]'));
var targets=blocks.filter(function(d){return d.classList.contains('target');});
// The details: a JSON array of HTML strings, gzip and base64 (or plain JSON).
function loaded(list){chunks=list;root.setAttribute('data-details','ready');
  var w=waiting;waiting=[];w.forEach(function(f){f();});}
function load(){
  var el=document.getElementById('kdelta-data');
  if(!el){loaded([]);return;}
  if(el.getAttribute('type')==='application/json'){loaded(JSON.parse(el.textContent));return;}
  if(typeof DecompressionStream==='undefined'){root.setAttribute('data-details','unsupported');
    blocks.forEach(function(d){var box=d.querySelector('.detail');
      if(box){box.textContent='This browser cannot decompress the details (it lacks DecompressionStream).';}});return;}
  var bin=atob(el.textContent.trim()),bytes=new Uint8Array(bin.length);
  for(var i=0;i<bin.length;i++){bytes[i]=bin.charCodeAt(i);}
  new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'))).text()
    .then(function(t){loaded(JSON.parse(t));});
}
function whenLoaded(f){if(chunks){f();}else{waiting.push(f);}}
function fill(d){
  if(d.getAttribute('data-filled')){return;}
  whenLoaded(function(){
    if(d.getAttribute('data-filled')){return;}
    var box=d.querySelector('.detail');
    if(box){box.innerHTML=chunks[+d.getAttribute('data-chunk')]||'';}
    d.setAttribute('data-filled','1');
  });
}
document.addEventListener('toggle',function(e){var d=e.target;if(d.open&&d.hasAttribute('data-chunk')){fill(d);}},true);
function openHash(){
  var id=decodeURIComponent(location.hash.slice(1)),el=id&&document.getElementById(id);
  if(el&&el.tagName==='DETAILS'){el.open=true;fill(el);el.scrollIntoView();}
}
window.addEventListener('hashchange',openHash);
function all(open){targets.forEach(function(d){if(!d.classList.contains('hidden')){d.open=open;if(open){fill(d);}}});}
var e=document.getElementById('expand-all'),c=document.getElementById('collapse-all');
if(e){e.addEventListener('click',function(){all(true);});}
if(c){c.addEventListener('click',function(){all(false);});}
// The filter: a target stays when it matches the text (its id, its resources, or — once the
// details are loaded — their text) and the chosen kind and namespace.
var q=document.getElementById('filter'),kind=document.getElementById('filter-kind'),
    ns=document.getElementById('filter-namespace'),count=document.getElementById('filter-count');
function apply(){
  var text=q?q.value.toLowerCase():'',k=kind?kind.value:'',n=ns?ns.value:'',shown=0;
  if(text&&chunks&&!lower){lower=chunks.map(function(s){return s.replace(/<[^>]*>/g,'').toLowerCase();});}
  targets.forEach(function(d){
    var ok=(!k||d.getAttribute('data-kinds').indexOf(' '+k+' ')>=0)&&
      (!n||d.getAttribute('data-namespaces').indexOf(' '+n+' ')>=0);
    if(ok&&text){
      ok=d.getAttribute('data-target').toLowerCase().indexOf(text)>=0||
        d.getAttribute('data-resources').indexOf(text)>=0||
        (lower!==null&&lower[+d.getAttribute('data-chunk')].indexOf(text)>=0);
    }
    d.classList.toggle('hidden',!ok);if(ok){shown++;}
  });
  if(count){count.textContent=(text||k||n)?shown+' of '+targets.length+' targets':'';}
}
[q,kind,ns].forEach(function(x){if(x){x.addEventListener('input',apply);}});
window.addEventListener('beforeprint',function(){blocks.forEach(function(d){d.open=true;fill(d);});});
root.setAttribute('data-script','ready');
root.setAttribute('data-ready-ms',String(Math.round(performance.now())));
// Decode after the first paint; open blocks and a linked one fill then.
setTimeout(function(){
  load();
  whenLoaded(function(){blocks.forEach(function(d){if(d.open){fill(d);}});openHash();if(q&&q.value){apply();}});
  // A self-check the tests run in a real browser: filter, open, and record what happened.
  if(location.hash==='#selftest'){whenLoaded(function(){
    if(kind&&kind.options.length>1){kind.value=kind.options[1].value;}
    apply();
    var first=targets.filter(function(d){return !d.classList.contains('hidden');})[0];
    if(first){first.open=true;fill(first);}
    var r=document.createElement('pre');r.id='selftest';
    r.textContent=JSON.stringify({kind:kind?kind.value:'',shown:count?count.textContent:'',
      opened:first?first.id:'',filled:first?!!first.getAttribute('data-filled'):false,
      detail:first?first.querySelector('.detail').innerHTML.length:0,
      ms:Math.round(performance.now())});
    document.body.appendChild(r);
  });}
},0);
})();
